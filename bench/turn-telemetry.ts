/**
 * What each turn's latency costs a call in CPU: the recorder (media/src/call/turn-latency.ts) fed
 * as the pipeline feeds it, and the telemetry made of it when the call ends (media/src/telemetry/:
 * the EMF metrics line, the spans batched and sent over OTLP/HTTP to a collector stand-in on
 * loopback, in a child process as the sidecar is its own process). Synthetic calls drive it, on
 * the call's clock, side by side in one run, rounds interleaved so the machine's noise falls on
 * all three alike:
 *
 * - `without`: the same calls with the no-op trace (what the pipeline would do with no recorder);
 * - `recorder`: the marks recorded, and the turns' components made at the end (the run's `latency`);
 * - `recorder + telemetry`: also the report given to the metrics and spans sinks, the spans flushed.
 *
 * The cost is the difference to `without`, in CPU µs per second of call audio, and its share of
 * the media task's goal of 2 ms of CPU per call-second (issue 31; the task measures more today,
 * docs/benchmarks.md "Media capacity", so the share of its real cost is smaller still).
 *
 *   tsx bench/turn-telemetry.ts [calls per round] [rounds]     prints one JSON line
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { NO_TRACE, TurnLatency, type LatencyTrace } from '../media/src/call/turn-latency.ts';
import { LatencyMetrics } from '../media/src/telemetry/latency-metrics.ts';
import { LatencySpans } from '../media/src/telemetry/latency-spans.ts';
import { MEDIA_SERVICE_NAME } from '../media/src/telemetry/media-telemetry.ts';
import { callLatencyReport, everySink, type TurnTelemetry } from '../media/src/telemetry/turn-telemetry.ts';

/** A call: 2 minutes, a caller turn every 8 s, the agent's answer 4 s of audio, a tool call every third turn. */
const CALL = { seconds: 120, turnEveryMs: 8000, answerMs: 4000, sentences: 3, ttsChunks: 40 } as const;
const FRAME_MS = 20;
/** The media goal per call-second (issue 31). */
const GOAL_CPU_US_PER_CALL_SECOND = 2000;

type Variant = 'without' | 'recorder' | 'recorder + telemetry';

/** One synthetic call through `trace` (the recorder, or the no-op), its marks as the pipeline makes them. */
function runCall(clock: { now: number }, trace: LatencyTrace, recorder: TurnLatency | null): void {
  const frames = (from: number, lengthMs: number) => {
    for (let at = from; at < from + lengthMs; at += FRAME_MS) {
      clock.now = at;
      trace.mark('first_frame_sent');
    }
  };
  // The greeting: a second of audio from the start.
  recorder?.greets();
  frames(0, 1000);
  for (
    let turn = 1, at = CALL.turnEveryMs;
    at + CALL.turnEveryMs <= CALL.seconds * 1000;
    turn++, at += CALL.turnEveryMs
  ) {
    clock.now = at + 350; // the end of speech at `at`, the final result and the turn decided after it
    recorder?.turn(at, at + 140);
    if (turn % 3 === 0) {
      trace.tool('lookup_order', 'start');
      clock.now += 230;
      trace.tool('lookup_order', 'end');
    }
    clock.now += 400;
    trace.mark('model_first_token');
    for (let sentence = 0; sentence < CALL.sentences; sentence++) trace.mark('first_sentence');
    clock.now += 180;
    for (let chunk = 0; chunk < CALL.ttsChunks; chunk++) trace.mark('tts_first_byte');
    frames(clock.now + 10, CALL.answerMs);
  }
}

/** Calls between two flushes of the spans (as the batch processor sends a full batch at once). */
const CALLS_PER_FLUSH = 20;

async function runCalls(
  variant: Variant,
  calls: number,
  telemetry: TurnTelemetry,
  flush: () => Promise<void>,
): Promise<void> {
  for (let call = 0; call < calls; call++) {
    if (variant === 'recorder + telemetry' && call % CALLS_PER_FLUSH === CALLS_PER_FLUSH - 1) await flush();
    const clock = { now: 0 };
    const recorder = variant === 'without' ? null : new TurnLatency({ nowMs: () => clock.now });
    runCall(clock, recorder ?? NO_TRACE, recorder);
    if (!recorder) continue;
    const run = { workflow_id: 12, id: call + 1, mode: 'webrtc' };
    // What the pipeline does as the call ends (the run's `latency`), then the sinks.
    const turns = recorder.measuredTurns();
    const latency = { call: recorder.result(turns), turns };
    const result = { startedAt: new Date().toISOString(), endedAt: new Date().toISOString(), latency };
    if (variant === 'recorder + telemetry') telemetry.callEnded(callLatencyReport(run, result)!);
  }
}

/** An OTLP/HTTP receiver on loopback in its own process (the collector's stand-in): it answers and drops. */
async function startCollectorStandIn(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const server = require('node:http').createServer((request, response) => {
         request.resume();
         request.on('end', () => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
       });
       server.listen(0, '127.0.0.1', () => console.log(server.address().port));`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve) =>
    child.stdout.once('data', (data) => resolve(String(data).trim())),
  );
  return { url: `http://127.0.0.1:${port}/v1/traces`, stop: () => child.kill() };
}

export interface TurnTelemetryFigures {
  callsPerRound: number;
  rounds: number;
  call: typeof CALL;
  /** CPU µs per call-second of each variant (all rounds). */
  cpuUsPerCallSecond: Record<Variant, number>;
  /** Over `without`: the recorder alone, and with the telemetry. */
  costUsPerCallSecond: { recorder: number; recorderAndTelemetry: number };
  /** The cost with the telemetry as a share of the 2 ms per call-second goal (%). */
  shareOfGoalPercent: number;
}

export async function measureTurnTelemetry(callsPerRound: number, rounds: number): Promise<TurnTelemetryFigures> {
  const collector = await startCollectorStandIn();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': MEDIA_SERVICE_NAME }),
    spanProcessors: [
      new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: collector.url }), maxQueueSize: 8_192 }),
    ],
  });
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  const telemetry = everySink(
    [
      new LatencyMetrics(new Metrics({ namespace: 'Bench', serviceName: MEDIA_SERVICE_NAME })),
      new LatencySpans(provider.getTracer('bench')),
    ],
    () => {},
  );
  // The EMF lines go where the task's stdout goes, a file descriptor: here /dev/null.
  const devNull = openSync('/dev/null', 'w');
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    writeSync(devNull, typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return true;
  }) as typeof process.stdout.write;
  const cpuUs: Record<Variant, number> = { without: 0, recorder: 0, 'recorder + telemetry': 0 };
  const variants: Variant[] = ['without', 'recorder', 'recorder + telemetry'];
  try {
    // Warm-up: every path compiled before it is measured.
    const flush = () => provider.forceFlush();
    for (const variant of variants) await runCalls(variant, Math.min(200, callsPerRound), telemetry, flush);
    await flush();
    for (let round = 0; round < rounds; round++) {
      // Each round in a rotated order, so no variant always follows the same one.
      for (const variant of [...variants.slice(round % 3), ...variants.slice(0, round % 3)]) {
        const start = process.cpuUsage();
        await runCalls(variant, callsPerRound, telemetry, flush);
        if (variant === 'recorder + telemetry') await flush(); // the spans sent, counted here
        const used = process.cpuUsage(start);
        cpuUs[variant] += used.user + used.system;
      }
    }
  } finally {
    process.stdout.write = write;
    closeSync(devNull);
    await provider.shutdown();
    collector.stop();
  }
  const callSeconds = callsPerRound * rounds * CALL.seconds;
  const perCallSecond = Object.fromEntries(
    variants.map((variant) => [variant, Math.round((cpuUs[variant] / callSeconds) * 100) / 100]),
  ) as Record<Variant, number>;
  const cost = (variant: Variant) => Math.round((perCallSecond[variant] - perCallSecond.without) * 100) / 100;
  return {
    callsPerRound,
    rounds,
    call: CALL,
    cpuUsPerCallSecond: perCallSecond,
    costUsPerCallSecond: { recorder: cost('recorder'), recorderAndTelemetry: cost('recorder + telemetry') },
    shareOfGoalPercent: Math.round((cost('recorder + telemetry') / GOAL_CPU_US_PER_CALL_SECOND) * 10_000) / 100,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(
    JSON.stringify(await measureTurnTelemetry(Number(process.argv[2] ?? 1000), Number(process.argv[3] ?? 6))),
  );
}
