/**
 * The media process of bench/media-capacity.ts: the media service's WebSocket endpoint and agent
 * loop (the production modules), with the real provider clients pointed at the local fakes of
 * bench/media-capacity-fakes.ts, another process. Admission accepts every stream and a finished call's files are
 * measured, not uploaded: what is measured is the audio pipeline of one task. It reports its own
 * CPU time, event-loop delay and resident memory to the driver over IPC.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { buildCallPlan } from '../media/src/agent/call-plan.ts';
import type { TextToSpeech } from '../media/src/agent/interfaces.ts';
import { platformProviders, type VoiceProviderKey } from '../media/src/agent/providers.ts';
import { CallPipeline } from '../media/src/call/call-pipeline.ts';
import { attachMediaStreams } from '../media/src/streams/websocket-server.ts';
import type { LatencyTurn } from '../shared/domain/call-latency.ts';
import { formatTranscriptFile } from '../shared/domain/transcripts.ts';
import { availabilityTool } from '../test/support/voice.ts';
import { schedulerTimes, schedulerWaitShare } from './scheduler-wait.ts';

export interface CallReport {
  runRef: string | null;
  failure: string | null;
  agentEnded: boolean;
  userLines: string[];
  agentLines: number;
  recordingBytes: number;
  transcriptBytes: number;
  /** Each caller turn's latency components, as the call's run records them. */
  turns: LatencyTurn[];
}

export interface WorkerFigures {
  cpuMs: number;
  windowMs: number;
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
  /** The share of the window the event loop's thread was ready but waited for a core (other processes had it). */
  schedulerWaitShare: number | null;
  /** Time spent in garbage collection over the window, and how many collections. */
  gcMs: number;
  gcCount: number;
  /** The longest collection's pause. */
  gcMaxMs: number;
  /** Media frames the calls received and sent over the window: the work done, whatever the machine's load. */
  framesIn: number;
  framesOut: number;
  rssBaselineBytes: number;
  rssPeakBytes: number;
  calls: CallReport[];
  /** Each second of the window: what stalled the event loop then (its longest delay, the time its thread waited for a core, its CPU, its collections). */
  seconds: SecondFigures[];
}

export interface SecondFigures {
  /** How long the second really lasted (its timer waits for the event loop too). */
  wallMs: number;
  loopDelayMaxMs: number;
  schedulerWaitMs: number | null;
  cpuMs: number;
  gcMs: number;
}

const settings = JSON.parse(process.env.BENCH_FAKE_SETTINGS!) as NodeJS.ProcessEnv;
const keys = JSON.parse(process.env.BENCH_FAKE_KEYS!) as Record<VoiceProviderKey, string>;
const toolOrigin = process.env.BENCH_TOOL_ORIGIN!;
const platform = platformProviders(
  settings,
  async (names) => Object.fromEntries(names.map((name) => [name, keys[name]])) as never,
);
const plan = buildCallPlan({
  agentName: 'Capacity bench',
  workflowDefinition: { greeting: 'Hello, this is the clinic.', closing: 'Thank you, goodbye.' },
  workflowConfigurations: { max_call_seconds: 3600, silence_timeout_seconds: 120 },
  templateContextVariables: {},
  initialContext: {},
  dispositionCodes: { answered: 'Answered' },
  passages: [{ id: 'p1', document_id: 'doc', title: 'Hours', text: 'Opening hours: Monday to Friday, 8:00 to 16:00.' }],
  tools: [availabilityTool(new Date().toISOString())],
  memories: [],
});
/** The agent's HTTP tool answered by the driver's fake endpoint, as in the local stack. */
const toolFetch: typeof fetch = (input, init) =>
  fetch(`${toolOrigin}/tool`, {
    ...init,
    headers: { ...(init?.headers as Record<string, string>), 'X-Tool-Url': String(input) },
  });

/**
 * BENCH_ELEVENLABS=http: each sentence its own HTTP request, as before calls had their own
 * multi-context connection (the two compared in one sitting).
 */
const speechOf = (tts: TextToSpeech): TextToSpeech =>
  process.env.BENCH_ELEVENLABS === 'http' ? { name: tts.name, stream: tts.stream.bind(tts) } : tts;

const calls: CallReport[] = [];
let framesIn = 0;
let framesOut = 0;
const server = createServer((_request, response) => response.writeHead(404).end());
attachMediaStreams(
  server,
  '/media',
  (send) => {
    const pipeline = new CallPipeline({
      prepare: async () => ({
        plan,
        providers: { stt: await platform.stt(), llm: await platform.llm(), tts: speechOf(await platform.tts()) },
        organizationId: 1,
        toolFetch,
      }),
      send: (message) => {
        if ((message as { event?: unknown }).event === 'media') framesOut += 1;
        send(message);
      },
    });
    const handle = pipeline.handle.bind(pipeline);
    pipeline.handle = (message) => {
      if ((message as { event?: unknown }).event === 'media') framesIn += 1;
      return handle(message);
    };
    return pipeline;
  },
  async (result) => {
    calls.push({
      runRef: result.runRef,
      failure: result.failure,
      agentEnded: result.agentEnded,
      userLines: result.fragments.filter((line) => line.role === 'user').map((line) => line.text),
      agentLines: result.fragments.filter((line) => line.role === 'assistant').length,
      recordingBytes: result.recording?.bytes ?? 0,
      transcriptBytes: Buffer.byteLength(formatTranscriptFile(result.fragments)),
      turns: result.latency.turns,
    });
    await result.recording?.dispose();
  },
  {
    admit: async (claim) => ({ accepted: true, runRef: claim.runRef ?? '', admitted: null }),
    maxCallSeconds: 3600,
  },
);

const delay = monitorEventLoopDelay({ resolution: 5 });
let cpuStart = process.cpuUsage();
let windowStart = performance.now();
let rssBaseline = process.memoryUsage.rss();
let rssPeak = rssBaseline;
setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 250).unref();

let gcMs = 0;
let gcCount = 0;
let gcMaxMs = 0;
/** The window second by second (monitorEventLoopDelay's max over each second). */
let seconds: SecondFigures[] = [];
// 20 ms: the stalls looked for are longer, and a finer timer would wake the loop 200 more times a second.
const secondDelay = monitorEventLoopDelay({ resolution: 20 });
let secondStart = { at: performance.now(), cpu: process.cpuUsage(), scheduler: schedulerTimes(), gcMs: 0 };
let secondTicker: NodeJS.Timeout | undefined;
const endSecond = () => {
  const cpu = process.cpuUsage(secondStart.cpu);
  const scheduler = schedulerTimes();
  const at = performance.now();
  seconds.push({
    wallMs: at - secondStart.at,
    loopDelayMaxMs: secondDelay.max / 1e6,
    schedulerWaitMs: scheduler && secondStart.scheduler ? scheduler.waitMs - secondStart.scheduler.waitMs : null,
    cpuMs: (cpu.user + cpu.system) / 1000,
    gcMs: gcMs - secondStart.gcMs,
  });
  secondDelay.reset();
  secondStart = { at, cpu: process.cpuUsage(), scheduler, gcMs };
};
let schedulerStart = schedulerTimes();
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcMs += entry.duration;
    gcCount += 1;
    gcMaxMs = Math.max(gcMaxMs, entry.duration);
  }
});
/** BENCH_CPU_PROFILE=file.cpuprofile: a CPU profile of the measured window (the process is killed, so --cpu-prof writes none). */
const profilePath = process.env.BENCH_CPU_PROFILE;
const profiler = profilePath ? new Session() : undefined;

process.on('message', async (message: { type: string }) => {
  if (message.type === 'baseline') {
    globalThis.gc?.();
    rssBaseline = process.memoryUsage.rss();
    rssPeak = rssBaseline;
    process.send!({ type: 'baseline' });
  } else if (message.type === 'measure') {
    delay.reset();
    delay.enable();
    gcMs = 0;
    gcCount = 0;
    gcMaxMs = 0;
    seconds = [];
    secondDelay.reset();
    secondDelay.enable();
    secondStart = { at: performance.now(), cpu: process.cpuUsage(), scheduler: schedulerTimes(), gcMs: 0 };
    secondTicker = setInterval(endSecond, 1000);
    framesIn = 0;
    framesOut = 0;
    gcObserver.observe({ entryTypes: ['gc'] });
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.setSamplingInterval', { interval: 500 });
      await profiler.post('Profiler.start');
    }
    cpuStart = process.cpuUsage();
    schedulerStart = schedulerTimes();
    windowStart = performance.now();
    process.send!({ type: 'measuring' });
  } else if (message.type === 'report') {
    delay.disable();
    clearInterval(secondTicker);
    secondDelay.disable();
    gcObserver.disconnect();
    const cpu = process.cpuUsage(cpuStart);
    const windowMs = performance.now() - windowStart;
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop');
      await writeFile(profilePath!, JSON.stringify(profile));
    }
    const figures: WorkerFigures = {
      cpuMs: (cpu.user + cpu.system) / 1000,
      windowMs,
      eventLoopDelayP99Ms: delay.percentile(99) / 1e6,
      eventLoopDelayMaxMs: delay.max / 1e6,
      schedulerWaitShare: schedulerWaitShare(schedulerStart, windowMs),
      gcMs,
      gcCount,
      gcMaxMs,
      framesIn,
      framesOut,
      rssBaselineBytes: rssBaseline,
      rssPeakBytes: rssPeak,
      calls,
      seconds,
    };
    process.send!({ type: 'report', figures });
  }
});

server.listen(0, '127.0.0.1', () => process.send!({ type: 'ready', port: (server.address() as AddressInfo).port }));
