/**
 * How many live calls one media task holds. One media process (bench/media-capacity-worker.ts:
 * the production WebSocket endpoint and agent loop) pinned to core 0; on core 1, a process of the
 * local Deepgram, OpenAI-compatible, ElevenLabs and tool fakes at fixed delays
 * (bench/media-capacity-fakes.ts) and this driver: N simulated callers speaking Twilio Media
 * Streams over real WebSockets: a 20 ms frame every 20 ms each, a question every TURN_MS
 * (knowledge questions and tool calls in turn), then goodbye, for at least BENCH_CALL_SECONDS
 * (60). Prints figures; asserts nothing.
 *
 * Figures per N (the agent's audio is sent as fast as it is synthesized and the provider buffers
 * it, so its timing is measured against playout):
 * - playout lateness: how late each agent frame arrives after its 20 ms slot, the slots starting
 *   when the answer's first frame arrives (p50/p99/max; above 20 ms a listener hears a gap);
 *   and the raw gap between consecutive frames of an answer;
 * - turn overhead: from the caller's end of speech (the last frame of the endpointing pause sent)
 *   to the answer's first frame, minus the fakes' fixed delays (as bench/voice-latency.ts);
 * - the turn's components as the media process recorded them (the run's `latency`): where it waits;
 * - the media process's event-loop delay p99, CPU ms per call-second (and the share of it spent
 *   collecting garbage), resident memory per call (peak over the idle baseline), recording and
 *   transcript bytes written;
 * - the driver's and the fakes' own event-loop delay and CPU: when high, they, not the media
 *   process, limit;
 * - each process's scheduler wait (the share of the window its event loop was ready to run while
 *   another process had the core, from /proc/self/schedstat), and the media process's five
 *   longest-stalled seconds with what it did in them: a stall spent waiting for a core is the
 *   machine's, one spent on CPU or in the collector is the process's own.
 * Every call must end as the agent's goodbye with the caller's every line in its transcript.
 *
 *   npx tsx bench/media-capacity.ts [N ...]        default 10 50 100 200 400
 *   BENCH_CPU_PROFILE=media.cpuprofile npx tsx bench/media-capacity.ts 200
 *     a V8 CPU profile of the media process over the measured window (the last N's)
 *   BENCH_SYSCALLS=1 npx tsx bench/media-capacity.ts 20
 *     the media process's system calls per inbound frame, by kind (`perf stat`; root)
 *   BENCH_MEDIA_NODE_FLAGS='--max-semi-space-size=16' npx tsx bench/media-capacity.ts 200
 *     Node flags for the media process
 *   BENCH_PIN=off npx tsx bench/media-capacity.ts 200
 *     no process pinned to a core (a machine shared with other work)
 *   BENCH_ELEVENLABS=http npx tsx bench/media-capacity.ts 200
 *     each sentence its own ElevenLabs HTTP request, not the call's multi-context WebSocket
 */
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { WebSocket } from 'ws';
import { ENDPOINTING_MS } from '../media/src/agent/deepgram-speech-to-text.ts';
import { speechMs } from '../media/src/audio/tones.ts';
import { SimulatedCaller, type MediaStreamMessage } from '../media/src/streams/simulated-caller.ts';
import { LATENCY_COMPONENTS } from '../shared/domain/call-latency.ts';
import { percentile } from './latency.ts';
import { schedulerTimes, schedulerWaitShare } from './scheduler-wait.ts';
import type { FakesFigures, FakesReady } from './media-capacity-fakes.ts';
import type { WorkerFigures } from './media-capacity-worker.ts';
import { FAKE_DELAYS_MS } from './voice-latency.ts';

const CALL_SECONDS = Number(process.env.BENCH_CALL_SECONDS ?? 60);
const TURN_MS = 6000;
const GREETING_MS = 2000;
const TURNS = Math.ceil((CALL_SECONDS * 1000) / TURN_MS);
/** Callers start spread over this long, as calls arrive at a task. */
const RAMP_MS = 5000;
const FRAME_MS = 20;
const PROVIDER_MS = FAKE_DELAYS_MS.stt + FAKE_DELAYS_MS.llm + FAKE_DELAYS_MS.tts;
/** Above this share of the window waiting for a core, a process's latency is the machine's. */
const MAX_SCHEDULER_WAIT_SHARE = 0.05;
export const GOALS = { latenessP99Ms: 20, overheadP95Ms: 50, memoryPerCallMiB: 4, cpuMsPerCallSecond: 2 } as const;

const lineOf = (call: number, turn: number) =>
  turn % 2 === 0
    ? `What are your opening hours? Caller ${call}, turn ${turn}.`
    : `Please check availability on Monday. Caller ${call}, turn ${turn}.`;
const GOODBYE = 'Thank you, goodbye.';

interface CallerState {
  index: number;
  ws: WebSocket;
  caller: SimulatedCaller;
  startedAt: number;
  queue: MediaStreamMessage[];
  framesSent: number;
  turn: number;
  /** Queue position of the frame that ends the current turn's endpointing pause. */
  endOfSpeechAt: number | null;
  endOfSpeech: number | null;
  knowledgeTurn: boolean;
  reply: { start: number; frames: number; last: number } | null;
  done: Promise<void>;
}

/** BENCH_PIN=off: no process is pinned (a machine shared with other work, where a pinned process cannot move off a busy core). */
const PIN = process.env.BENCH_PIN !== 'off';

function pinTo(pid: number, core: number): boolean {
  if (!PIN) return false;
  try {
    execFileSync('taskset', ['-a', '-cp', String(core), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The media process's system calls over the window, by kind (BENCH_SYSCALLS=1: `perf stat`, root). */
function countSyscalls(pid: number): () => Promise<Record<string, number>> {
  const kinds = ['read', 'write', 'writev', 'epoll_wait', 'epoll_pwait', 'epoll_ctl', 'futex'];
  const perf = spawn(
    'perf',
    [
      'stat',
      '-x',
      ',',
      '-p',
      String(pid),
      '-e',
      ['raw_syscalls:sys_enter', ...kinds.map((kind) => `syscalls:sys_enter_${kind}`)].join(','),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let output = '';
  perf.stderr.on('data', (data) => (output += String(data)));
  return () =>
    new Promise((resolve) => {
      perf.once('close', () =>
        resolve(
          Object.fromEntries(
            output
              .split('\n')
              .map((line) => line.split(','))
              .filter((fields) => fields.length > 2 && /^\d+$/.test(fields[0]!))
              .map((fields) => [fields[2]!.replace(/^.*sys_enter_?/, '') || 'all', Number(fields[0])]),
          ),
        ),
      );
      perf.kill('SIGINT');
    });
}

async function startWorker(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; port: number; pinned: boolean }> {
  const child = fork(new URL('./media-capacity-worker.ts', import.meta.url), {
    // BENCH_MEDIA_NODE_FLAGS: Node flags to try on the media process (a heap setting, say).
    execArgv: [
      '--import',
      'tsx',
      '--expose-gc',
      ...(process.env.BENCH_MEDIA_NODE_FLAGS ?? '').split(' ').filter(Boolean),
    ],
    env: { ...process.env, ...env, POWERTOOLS_LOG_LEVEL: 'ERROR' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const pinned = pinTo(child.pid!, 0);
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`the media process exited (${code})`)));
  });
  return { child, port, pinned };
}

function ask<T>(child: ChildProcess, type: string, answer: string): Promise<T> {
  return new Promise((resolve) => {
    const listener = (message: { type: string; figures?: T }) => {
      if (message.type !== answer) return;
      child.off('message', listener);
      resolve(message.figures as T);
    };
    child.on('message', listener);
    child.send({ type });
  });
}

const share = (value: number | null) => (value === null ? null : Math.round(value * 1000) / 1000);

const summary = (values: number[], ps: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (value: number) => Math.round(value * 10) / 10;
  return Object.fromEntries([
    ...ps.map((p) => [`p${p}`, sorted.length ? round(percentile(sorted, p)) : null]),
    ['max', sorted.length ? round(sorted.at(-1)!) : null],
  ]) as Record<string, number | null>;
};

/** The providers' fakes in a process of their own (bench/media-capacity-fakes.ts), on the driver's core. */
async function startFakes(): Promise<{ child: ChildProcess; ready: FakesReady }> {
  const child = fork(new URL('./media-capacity-fakes.ts', import.meta.url), {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  if (availableParallelism() >= 2) pinTo(child.pid!, 1);
  const ready = await new Promise<FakesReady>((resolve, reject) => {
    child.once('message', (message: FakesReady) => resolve(message));
    child.once('exit', (code) => reject(new Error(`the fakes' process exited (${code})`)));
  });
  return { child, ready };
}

async function measure(calls: number, fakes: { child: ChildProcess; ready: FakesReady }) {
  const { child, port, pinned } = await startWorker({
    BENCH_FAKE_SETTINGS: JSON.stringify(fakes.ready.settings),
    BENCH_FAKE_KEYS: JSON.stringify(fakes.ready.keys),
    BENCH_TOOL_ORIGIN: fakes.ready.toolOrigin,
  });
  await ask(child, 'baseline', 'baseline');
  const lateness: number[] = [];
  const gaps: number[] = [];
  const overheads: number[] = [];
  const driverDelay = monitorEventLoopDelay({ resolution: 5 });
  driverDelay.enable();
  const states: CallerState[] = [];
  const start = performance.now();

  const open = (index: number): CallerState => {
    const caller = new SimulatedCaller({ streamSid: `MZ${index}`, runRef: `0.0.${index}` });
    const ws = new WebSocket(`ws://127.0.0.1:${port}/media`);
    const state: CallerState = {
      index,
      ws,
      caller,
      startedAt: 0,
      queue: [],
      framesSent: 0,
      turn: -1,
      endOfSpeechAt: null,
      endOfSpeech: null,
      knowledgeTurn: false,
      reply: null,
      done: new Promise((resolve) => ws.once('close', () => resolve())),
    };
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { event: string; mark?: unknown };
      const now = performance.now();
      if (frame.event === 'mark') return ws.send(JSON.stringify(frame));
      if (frame.event !== 'media') return;
      if (state.endOfSpeech !== null) {
        // The answer to the turn just ended begins.
        if (state.knowledgeTurn && state.turn > 0) overheads.push(now - state.endOfSpeech - PROVIDER_MS);
        state.endOfSpeech = null;
        state.reply = { start: now, frames: 0, last: now };
      }
      state.reply ??= { start: now, frames: 0, last: now };
      const reply = state.reply;
      lateness.push(Math.max(0, now - (reply.start + reply.frames * FRAME_MS)));
      if (reply.frames > 0) gaps.push(now - reply.last);
      reply.frames += 1;
      reply.last = now;
    });
    ws.once('open', () => {
      state.queue.push(...caller.start());
      state.startedAt = performance.now();
    });
    return state;
  };

  /** The next turn's frames: a line, then silence until the turn's end; goodbye after the last. */
  const nextTurn = (state: CallerState) => {
    state.turn += 1;
    if (state.turn > TURNS) return;
    const text = state.turn === TURNS ? GOODBYE : lineOf(state.index, state.turn);
    // The caller lets the greeting play first.
    if (state.turn === 0) state.queue.push(...state.caller.silence(GREETING_MS));
    const speech = state.caller.say(text);
    state.endOfSpeechAt = state.framesSent + state.queue.length + speech.length + ENDPOINTING_MS / FRAME_MS - 1;
    state.knowledgeTurn = state.turn % 2 === 0 && state.turn < TURNS;
    state.queue.push(...speech, ...state.caller.silence(state.turn === TURNS ? 30_000 : TURN_MS - speechMs(text)));
  };

  // One ticker sends every caller's due frames: 20 ms of audio per 20 ms, catching up after a delay.
  const ticker = setInterval(() => {
    const now = performance.now();
    for (const state of states) {
      if (!state.startedAt || state.ws.readyState !== WebSocket.OPEN) continue;
      const due = Math.floor((now - state.startedAt) / FRAME_MS) + 2; // connected + start first
      while (state.framesSent < due) {
        if (!state.queue.length) nextTurn(state);
        const message = state.queue.shift();
        if (!message) break;
        state.ws.send(JSON.stringify(message));
        if (state.framesSent === state.endOfSpeechAt) {
          state.endOfSpeech = performance.now();
          state.reply = null;
        }
        state.framesSent += 1;
      }
    }
  }, 5);

  for (let index = 0; index < calls; index += 1) {
    states.push(open(index));
    await new Promise((resolve) => setTimeout(resolve, RAMP_MS / calls));
  }
  await Promise.all([ask(child, 'measure', 'measuring'), ask(fakes.child, 'measure', 'measuring')]);
  const syscalls = process.env.BENCH_SYSCALLS ? countSyscalls(child.pid!) : undefined;
  const driverCpuStart = process.cpuUsage();
  const driverSchedulerStart = schedulerTimes();
  const driverWindowStart = performance.now();
  await Promise.race([
    Promise.all(states.map((state) => state.done)),
    new Promise((resolve) => setTimeout(resolve, (CALL_SECONDS + 90) * 1000)),
  ]);
  clearInterval(ticker);
  driverDelay.disable();
  const driverCpu = process.cpuUsage(driverCpuStart);
  const driverWindowMs = performance.now() - driverWindowStart;
  const driverCpuShare = (driverCpu.user + driverCpu.system) / 1000 / driverWindowMs;
  const driverSchedulerWait = schedulerWaitShare(driverSchedulerStart, driverWindowMs);
  // The last saves of the media process.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const worker = await ask<WorkerFigures>(child, 'report', 'report');
  const fakesLoad = await ask<FakesFigures>(fakes.child, 'report', 'report');
  const syscallCounts = await syscalls?.();
  child.kill();
  for (const state of states) state.ws.terminate();

  const expected = (index: number) => [...Array.from({ length: TURNS }, (_, turn) => lineOf(index, turn)), GOODBYE];
  const complete = worker.calls.filter((call) => {
    const index = Number(call.runRef?.split('.')[2]);
    return (
      call.agentEnded &&
      !call.failure &&
      JSON.stringify(call.userLines) === JSON.stringify(expected(index)) &&
      call.agentLines >= TURNS + 2
    );
  });
  const distinct = new Set(worker.calls.map((call) => call.runRef)).size;
  const callSeconds = (worker.windowMs / 1000) * calls;
  const figures = {
    calls,
    completedWithFullTranscript: complete.length,
    distinctCalls: distinct,
    wallSeconds: Math.round(((performance.now() - start) / 1000) * 10) / 10,
    pinned,
    playoutLatenessMs: summary(lateness, [50, 99]),
    frameGapMs: summary(gaps, [50, 99]),
    turnOverheadMs: summary(overheads, [50, 95]),
    turnsMeasured: overheads.length,
    // Where a turn's time went, as the media process recorded it (the fakes' fixed delays inside
    // transcription, model and text-to-speech): a component far above its delay is where turns queue.
    mediaTurnMs: Object.fromEntries(
      // The turn's components as the media process recorded them (its own clock, the run's `latency`).
      LATENCY_COMPONENTS.map((component) => [
        component,
        summary(
          worker.calls.flatMap((call) =>
            call.turns.flatMap((turn) => (turn[component] === null ? [] : [turn[component]])),
          ),
          [50, 95],
        ),
      ]),
    ),
    eventLoopDelayP99Ms: Math.round(worker.eventLoopDelayP99Ms * 10) / 10,
    eventLoopDelayMaxMs: Math.round(worker.eventLoopDelayMaxMs),
    // The share of the window the media process's event loop was ready to run but another process
    // had its core: on a shared machine, a stall the process's own CPU does not explain.
    schedulerWaitShare: share(worker.schedulerWaitShare),
    cpuMsPerCallSecond: Math.round((worker.cpuMs / callSeconds) * 100) / 100,
    // The same per second of the callers' audio the media process received: on a loaded machine
    // the driver falls behind, and the calls send less than a call-second each second.
    cpuMsPerAudioSecond: Math.round((worker.cpuMs / ((worker.framesIn * FRAME_MS) / 1000)) * 100) / 100,
    framesInOut: [worker.framesIn, worker.framesOut],
    loadAverage: loadavg().map((load) => Math.round(load * 10) / 10),
    gcShareOfCpu: Math.round((worker.gcMs / worker.cpuMs) * 100) / 100,
    // The seconds the event loop stalled longest, and what the process did in them: a stall with
    // the thread waiting for a core is the machine's; one with the CPU or the collector busy is ours.
    longestStallSeconds: [...worker.seconds]
      .sort((a, b) => b.loopDelayMaxMs - a.loopDelayMaxMs)
      .slice(0, 5)
      .map((second) => ({
        wallMs: Math.round(second.wallMs),
        loopDelayMaxMs: Math.round(second.loopDelayMaxMs),
        schedulerWaitMs: second.schedulerWaitMs === null ? null : Math.round(second.schedulerWaitMs),
        cpuMs: Math.round(second.cpuMs),
        gcMs: Math.round(second.gcMs),
      })),
    gcPerSecond: Math.round(worker.gcCount / (worker.windowMs / 1000)),
    gcMaxPauseMs: Math.round(worker.gcMaxMs * 10) / 10,
    cpuShareOfCore: Math.round((worker.cpuMs / worker.windowMs) * 100) / 100,
    memoryPerCallMiB: Math.round(((worker.rssPeakBytes - worker.rssBaselineBytes) / calls / 2 ** 20) * 100) / 100,
    rssPeakMiB: Math.round(worker.rssPeakBytes / 2 ** 20),
    recordingBytes: worker.calls.reduce((sum, call) => sum + call.recordingBytes, 0),
    transcriptBytes: worker.calls.reduce((sum, call) => sum + call.transcriptBytes, 0),
    driverEventLoopDelayP99Ms: Math.round((driverDelay.percentile(99) / 1e6) * 10) / 10,
    driverCpuShareOfCore: Math.round(driverCpuShare * 100) / 100,
    driverSchedulerWaitShare: share(driverSchedulerWait),
    fakesEventLoopDelayP99Ms: Math.round(fakesLoad.eventLoopDelayP99Ms * 10) / 10,
    fakesCpuShareOfCore: Math.round(fakesLoad.cpuShareOfCore * 100) / 100,
    fakesSchedulerWaitShare: share(fakesLoad.schedulerWaitShare),
    ...(syscallCounts && {
      syscallsPerFrameIn: Object.fromEntries(
        Object.entries(syscallCounts).map(([name, count]) => [name, Math.round((count / worker.framesIn) * 100) / 100]),
      ),
    }),
  };
  // A latency figure is the media process's only while no process of the bench waited for a core
  // (on a shared machine they can wait most of the window whatever their own load).
  const waits = [worker.schedulerWaitShare, driverSchedulerWait, fakesLoad.schedulerWaitShare];
  const latencyMeasurable = waits.every((wait) => wait === null || wait <= MAX_SCHEDULER_WAIT_SHARE);
  const meetsGoals =
    complete.length === calls &&
    (figures.playoutLatenessMs.p99 ?? Infinity) <= GOALS.latenessP99Ms &&
    (figures.turnOverheadMs.p95 ?? Infinity) <= GOALS.overheadP95Ms &&
    figures.memoryPerCallMiB <= GOALS.memoryPerCallMiB &&
    figures.cpuMsPerCallSecond <= GOALS.cpuMsPerCallSecond;
  return { ...figures, latencyMeasurable, meetsGoals };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const counts = process.argv.slice(2).map(Number);
  if (availableParallelism() >= 2) pinTo(process.pid, 1);
  const fakes = await startFakes();
  const results = [];
  try {
    for (const calls of counts.length ? counts : [10, 50, 100, 200, 400]) {
      const figures = await measure(calls, fakes);
      results.push(figures);
      console.log(JSON.stringify(figures));
    }
  } finally {
    fakes.child.send({ type: 'stop' });
  }
  const largest = results.filter((figures) => figures.meetsGoals).at(-1);
  console.log(
    JSON.stringify({ goals: GOALS, largestCallsMeetingGoals: largest?.calls ?? 0, callSeconds: CALL_SECONDS }),
  );
}
