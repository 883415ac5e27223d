import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { HrTime } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TRACE_INDEXED_ATTRIBUTES } from '../../media/src/deployment.ts';
import {
  AGENT_DIMENSION,
  GREETING_METRIC,
  LatencyMetrics,
  TURN_LATENCY_METRICS,
} from '../../media/src/telemetry/latency-metrics.ts';
import { LatencySpans, turnPhases, type PhaseSpan } from '../../media/src/telemetry/latency-spans.ts';
import { MEDIA_SERVICE_NAME, startMediaTelemetry } from '../../media/src/telemetry/media-telemetry.ts';
import {
  callLatencyReport,
  everySink,
  type CallLatencyReport,
  type TurnTelemetry,
} from '../../media/src/telemetry/turn-telemetry.ts';
import { latencyTurn, type LatencyTurn } from '../../shared/domain/call-latency.ts';
import { CallPipeline } from '../../media/src/call/call-pipeline.ts';
import { latencyTurnWith } from '../support/latency-turns.ts';
import { scriptedCall } from '../support/scripted-call.ts';

const NAMESPACE = 'VoiceAgentPlatform/Media';
const STARTED = Date.parse('2026-11-26T10:00:00.000Z');

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const turn = latencyTurnWith;

/** The example of docs (latency-shape): 140 + 310 + 420 + 230 (a tool) + 180 + 12 = voice to voice 1292. */
const TOOL_TURN = turn({
  turn: 1,
  at_ms: 5320,
  transcription_ms: 140,
  endpointing_ms: 310,
  model_ms: 420,
  tools_ms: 230,
  text_to_speech_ms: 180,
  overhead_ms: 12,
  voice_to_voice_ms: 1292,
  tools: [{ name: 'lookup_order', start_ms: 520, duration_ms: 230 }],
});
/** A turn of keys: no transcript, so endpointing counts from the end of the entry. */
const KEYS_TURN = turn({
  turn: 2,
  at_ms: 9000,
  endpointing_ms: 5,
  model_ms: 300,
  text_to_speech_ms: 150,
  overhead_ms: 10,
  voice_to_voice_ms: 465,
});

const report = (changes: Partial<CallLatencyReport> = {}): CallLatencyReport => ({
  agentId: 12,
  runId: 345,
  startedAtEpochMs: STARTED,
  endedAtEpochMs: STARTED + 20_000,
  greetingMs: 412,
  turns: [TOOL_TURN, KEYS_TURN],
  ...changes,
});

/** The EMF documents LatencyMetrics writes on stdout for `reports`. */
function emitted(...reports: CallLatencyReport[]): Record<string, any>[] {
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  const sink = new LatencyMetrics(new Metrics({ namespace: NAMESPACE, serviceName: MEDIA_SERVICE_NAME }));
  for (const one of reports) sink.callEnded(one);
  vi.mocked(process.stdout.write).mockRestore();
  return lines
    .flatMap((line) => line.split('\n'))
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

describe('turn latency metrics (Embedded Metric Format, per agent)', () => {
  it("writes one line per call: each component's values per turn and the greeting, in ms, by service and agent", () => {
    const [document, ...others] = emitted(report());
    expect(others).toEqual([]);
    const [directive] = document!._aws.CloudWatchMetrics;
    expect(directive.Namespace).toBe(NAMESPACE);
    expect(directive.Dimensions).toEqual([['service', AGENT_DIMENSION]]);
    expect(Object.fromEntries(directive.Metrics.map((m: { Name: string; Unit: string }) => [m.Name, m.Unit]))).toEqual(
      Object.fromEntries(
        [GREETING_METRIC, ...Object.values(TURN_LATENCY_METRICS)].map((name) => [name, 'Milliseconds']),
      ),
    );
    expect(document).toMatchObject({
      service: MEDIA_SERVICE_NAME,
      agent_id: '12',
      GreetingDelay: 412,
      VoiceToVoiceLatency: [1292, 465],
      TranscriptionLatency: 140, // the turn of keys has none
      EndpointingLatency: [310, 5],
      ModelLatency: [420, 300],
      ToolsLatency: 230,
      TextToSpeechLatency: [180, 150],
      OverheadLatency: [12, 10],
    });
    expect(Math.abs(document!._aws.Timestamp - Date.now())).toBeLessThan(60_000);
  });

  it('keeps the agent dimension on every line of a long call (Powertools publishes a metric at 100 values)', () => {
    const turns = Array.from({ length: 150 }, (_, index) => ({ ...KEYS_TURN, turn: index + 1 }));
    const documents = emitted(report({ turns }));
    expect(documents.map((document) => document.VoiceToVoiceLatency.length)).toEqual([99, 51]);
    expect(documents.map((document) => document.agent_id)).toEqual(['12', '12']);
    expect(documents.map((document) => document.GreetingDelay)).toEqual([412, undefined]);
  });

  it('writes nothing for a call that measured nothing, and keeps each call to its own agent', () => {
    const documents = emitted(
      report({ greetingMs: null, turns: [turn({ turn: 1, at_ms: 100 })] }),
      report({ agentId: 7, greetingMs: null, turns: [KEYS_TURN] }),
    );
    expect(documents).toHaveLength(1);
    expect(documents[0]).toMatchObject({ agent_id: '7', VoiceToVoiceLatency: 465 });
    expect(documents[0]).not.toHaveProperty('GreetingDelay');
  });
});

const epochMs = ([seconds, nanos]: HrTime) => seconds * 1000 + nanos / 1e6;

/** The spans LatencySpans makes for `reports`, by an in-memory exporter. */
function spansOf(...reports: CallLatencyReport[]): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const sink = new LatencySpans(provider.getTracer('test'));
  for (const one of reports) sink.callEnded(one);
  return exporter.getFinishedSpans();
}

/** Each span as name, parent's name, start and end (ms after the call was answered). */
function tree(spans: ReadableSpan[]) {
  const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
  return spans
    .map((span) => ({
      name: span.name,
      parent: span.parentSpanContext ? (byId.get(span.parentSpanContext.spanId)?.name ?? 'unknown') : null,
      startMs: epochMs(span.startTime) - STARTED,
      endMs: epochMs(span.endTime) - STARTED,
    }))
    .sort((a, b) => a.startMs - b.startMs || b.endMs - a.endMs);
}

describe('turn latency spans (OpenTelemetry)', () => {
  it('makes a call span, its greeting, a turn span per turn and a span per component and tool call, on the epoch', () => {
    expect(tree(spansOf(report()))).toEqual([
      { name: 'call', parent: null, startMs: 0, endMs: 20_000 },
      { name: 'greeting', parent: 'call', startMs: 0, endMs: 412 },
      { name: 'turn', parent: 'call', startMs: 5320, endMs: 6612 },
      { name: 'transcription', parent: 'turn', startMs: 5320, endMs: 5460 },
      { name: 'endpointing', parent: 'turn', startMs: 5460, endMs: 5770 },
      // The model's time with its tool call inside it.
      { name: 'model', parent: 'turn', startMs: 5770, endMs: 6420 },
      { name: 'execute_tool lookup_order', parent: 'turn', startMs: 5840, endMs: 6070 },
      { name: 'text_to_speech', parent: 'turn', startMs: 6420, endMs: 6600 },
      { name: 'overhead', parent: 'turn', startMs: 6600, endMs: 6612 },
      { name: 'turn', parent: 'call', startMs: 9000, endMs: 9465 },
      { name: 'endpointing', parent: 'turn', startMs: 9000, endMs: 9005 },
      { name: 'model', parent: 'turn', startMs: 9005, endMs: 9305 },
      { name: 'text_to_speech', parent: 'turn', startMs: 9305, endMs: 9455 },
      { name: 'overhead', parent: 'turn', startMs: 9455, endMs: 9465 },
    ]);
  });

  it('keeps one trace per call, and carries ids, the turn number and the figures, never what was said', () => {
    const spans = spansOf(report(), report({ runId: 346 }));
    const traces = new Set(spans.map((span) => span.spanContext().traceId));
    expect(traces.size).toBe(2);
    for (const span of spans) {
      // The attributes the collector indexes for X-Ray's filters, on every span.
      for (const key of TRACE_INDEXED_ATTRIBUTES) expect(span.attributes).toHaveProperty(key);
      expect(span.attributes).toMatchObject({ agent_id: 12 });
      expect(
        Object.values(span.attributes).every(
          (value) => typeof value === 'number' || span.name.startsWith('execute_tool'),
        ),
      ).toBe(true);
    }
    const [call] = spans.filter((span) => span.name === 'call');
    expect(call!.attributes).toEqual({ agent_id: 12, run_id: 345, turn_count: 2, greeting_ms: 412 });
    const [first] = spans.filter((span) => span.name === 'turn');
    expect(first!.attributes).toEqual({
      agent_id: 12,
      run_id: 345,
      turn: 1,
      transcription_ms: 140,
      endpointing_ms: 310,
      model_ms: 420,
      tools_ms: 230,
      text_to_speech_ms: 180,
      overhead_ms: 12,
      voice_to_voice_ms: 1292,
    });
    const [tool] = spans.filter((span) => span.name.startsWith('execute_tool'));
    expect(tool!.attributes).toEqual({
      agent_id: 12,
      run_id: 345,
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_order',
    });
  });

  it.each<{ name: string; turn: LatencyTurn; phases: PhaseSpan[] }>([
    {
      name: 'a turn the agent never answered (the call ended while the model wrote): what happened, and the turn ends there',
      turn: turn({ turn: 1, at_ms: 1000, transcription_ms: 100, endpointing_ms: 300 }),
      phases: [
        { name: 'transcription', startMs: 1000, endMs: 1100 },
        { name: 'endpointing', startMs: 1100, endMs: 1400 },
      ],
    },
    {
      name: 'a turn with no first sentence (its first audio is the filler): text-to-speech counts from the turn decided',
      turn: turn({
        turn: 1,
        at_ms: 0,
        endpointing_ms: 10,
        text_to_speech_ms: 90,
        overhead_ms: 5,
        voice_to_voice_ms: 105,
      }),
      phases: [
        { name: 'endpointing', startMs: 0, endMs: 10 },
        { name: 'text_to_speech', startMs: 10, endMs: 100 },
        { name: 'overhead', startMs: 100, endMs: 105 },
      ],
    },
  ])('$name', ({ turn: one, phases }) => {
    expect(turnPhases(one)).toEqual(phases);
    const spans = tree(spansOf(report({ greetingMs: null, turns: [one] })));
    expect(spans.find((span) => span.name === 'turn')).toMatchObject({
      startMs: one.at_ms,
      endMs: phases.at(-1)!.endMs,
    });
  });
});

describe('the seam: a call that ends reports what its recorder measured', () => {
  it('reports the greeting and each turn of a voice call, with their epoch times, to every sink', async () => {
    let now = STARTED;
    const call = scriptedCall(() => now);
    const { pipeline, gates } = call;
    await call.start('1.12.345');
    await pipeline.idle();
    await call.callerAsks((ms) => (now = STARTED + ms), { untilMs: 1000, finalAtMs: 1100, endAtMs: 1400 });
    now = STARTED + 1650;
    gates.model.open();
    await pipeline.idle();
    now = STARTED + 3000;
    const result = await pipeline.finish('closed');

    const run = { workflow_id: 12, id: 345, mode: 'webrtc' };
    const measured = callLatencyReport(run, result);
    expect(measured).toEqual({
      agentId: 12,
      runId: 345,
      startedAtEpochMs: STARTED,
      endedAtEpochMs: STARTED + 3000,
      greetingMs: 0,
      turns: pipeline.latency.turns.map(latencyTurn),
    });
    expect(measured!.turns[0]).toMatchObject({ at_ms: 800, voice_to_voice_ms: 850 });
    expect(tree(spansOf(measured!)).filter((span) => span.parent !== 'turn')).toEqual([
      { name: 'call', parent: null, startMs: 0, endMs: 3000 },
      { name: 'greeting', parent: 'call', startMs: 0, endMs: 0 },
      { name: 'turn', parent: 'call', startMs: 800, endMs: 1650 },
    ]);
    // A chat is not a voice call; a call that measured nothing has nothing to report.
    expect(callLatencyReport({ ...run, mode: 'chat' }, result)).toBeNull();
    const silent = new CallPipeline({ prepare: async () => ({}) as never, send: () => {} });
    expect(callLatencyReport(run, await silent.finish('closed'))).toBeNull();
  });

  it('gives the report to every sink, one that throws logged and the others still called', () => {
    const received: number[] = [];
    const log = vi.fn();
    const failing: TurnTelemetry = {
      callEnded: () => {
        throw new Error('sink down');
      },
    };
    const counting: TurnTelemetry = { callEnded: (one) => received.push(one.runId) };
    everySink([failing, counting], log).callEnded(report());
    expect(received).toEqual([345]);
    expect(log).toHaveBeenCalledWith('warn', 'turn latency telemetry not emitted', {
      runId: 345,
      error: 'Error: sink down',
    });
  });
});

describe('the task telemetry from its settings', () => {
  it('sends the spans over OTLP/HTTP to the configured collector (flushed at shutdown), as the service named media', async () => {
    const bodies: { path: string; type: string; body: any }[] = [];
    const collector = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        bodies.push({ path: request.url ?? '', type: request.headers['content-type'] ?? '', body: JSON.parse(body) });
        response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const { port } = collector.address() as AddressInfo;
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    try {
      const telemetry = startMediaTelemetry(
        {
          metricsNamespace: NAMESPACE,
          traces: { exporter: 'otlp', endpoint: `http://127.0.0.1:${port}/v1/traces` },
        },
        () => {},
      );
      telemetry.sink.callEnded(report());
      await telemetry.shutdown();
    } finally {
      collector.close();
    }
    expect(bodies.map(({ path, type }) => ({ path, type }))).toEqual([
      { path: '/v1/traces', type: 'application/json' },
    ]);
    const [resourceSpans] = bodies[0]!.body.resourceSpans;
    expect(resourceSpans.resource.attributes).toContainEqual({
      key: 'service.name',
      value: { stringValue: MEDIA_SERVICE_NAME },
    });
    const names = resourceSpans.scopeSpans.flatMap((scope: { spans: { name: string }[] }) =>
      scope.spans.map((span) => span.name),
    );
    expect(names.filter((name: string) => name === 'turn')).toHaveLength(2);
    expect(names).toContain('call');
  });
});
