/**
 * The providers' process of bench/media-capacity.ts: the local Deepgram, OpenAI-compatible,
 * ElevenLabs and tool fakes at the fixed delays of bench/voice-latency.ts, in a process of their
 * own. In the driver's process they shared one event loop with the simulated callers (at 200 calls
 * 10,000 frames a second sent and the fake Deepgram decoding as many), so a turn's final result,
 * first token or first audio waited behind the callers' frames and the turn overhead measured
 * the load generator as much as the media process. Tells the driver where they listen over IPC,
 * measures its own CPU and event-loop delay over the driver's window, and stops on `stop`.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startFakeVoiceProviders } from '../local/fakes/voice-providers.ts';
import { schedulerTimes, schedulerWaitShare } from './scheduler-wait.ts';
import { FAKE_DELAYS_MS } from './voice-latency.ts';

/** The fakes' own load over a measured window: if their core is busy, they, not the media process, delay turns. */
export interface FakesFigures {
  cpuShareOfCore: number;
  eventLoopDelayP99Ms: number;
  schedulerWaitShare: number | null;
}

/** What the media process needs to reach the fakes. */
export interface FakesReady {
  type: 'fakes';
  settings: Record<string, string>;
  keys: Record<string, string>;
  toolOrigin: string;
}

const fakes = await startFakeVoiceProviders({
  deepgram: { finalDelayMs: FAKE_DELAYS_MS.stt },
  openai: { firstTokenDelayMs: FAKE_DELAYS_MS.llm },
  elevenlabs: { firstByteDelayMs: FAKE_DELAYS_MS.tts },
});
const delay = monitorEventLoopDelay({ resolution: 5 });
let cpuStart = process.cpuUsage();
let windowStart = performance.now();
let schedulerStart = schedulerTimes();
process.on('message', (message: { type: string }) => {
  if (message.type === 'measure') {
    delay.reset();
    delay.enable();
    cpuStart = process.cpuUsage();
    schedulerStart = schedulerTimes();
    windowStart = performance.now();
    process.send!({ type: 'measuring' });
  } else if (message.type === 'report') {
    delay.disable();
    const cpu = process.cpuUsage(cpuStart);
    const windowMs = performance.now() - windowStart;
    const figures: FakesFigures = {
      cpuShareOfCore: (cpu.user + cpu.system) / 1000 / windowMs,
      eventLoopDelayP99Ms: delay.percentile(99) / 1e6,
      schedulerWaitShare: schedulerWaitShare(schedulerStart, windowMs),
    };
    process.send!({ type: 'report', figures });
  } else if (message.type === 'stop') void fakes.stop().finally(() => process.exit(0));
});
// The driver is gone (it failed): nothing is left listening.
process.on('disconnect', () => process.exit(0));
process.send!({
  type: 'fakes',
  settings: fakes.settings,
  keys: fakes.keys,
  toolOrigin: fakes.tools.origin,
} satisfies FakesReady);
