/**
 * The greeting's delay: from the call answered (the media stream's `start` handed to the call) to
 * the first frame of the greeting sent to the caller, with and without the early connections
 * (media/src/call-preparer.ts), side by side in one run: calls alternate between the two, so both
 * see the same machine load. The real clients (Deepgram SDK, openai, ElevenLabs SDK) talk to the
 * local fakes over loopback at their fixed delays, and every new connection costs the fakes'
 * connection setup (FAKE_CONNECT_MS: TCP, TLS 1.3 and the WebSocket upgrade across the internet),
 * as it would to a real provider; a kept-alive HTTP connection does not.
 *
 * Early: the ring is imitated by waiting until what prepareEarlyCall makes ready (the greeting's
 * speech, the model's connection: the same functions) is ready, then the call starts with it.
 * Without: the call asks for the greeting on answer. Both open the speech-to-text stream on
 * answer, while the greeting starts (call-pipeline.ts). The agent's setup read (DynamoDB),
 * which early connections also take out of the answer, is left out of both: the figures are the
 * providers' share only.
 *
 * `realtime`: an agent of the realtime engine, whose greeting is its model's (the local Realtime fake
 * over TLS, its first audio REALTIME_FAKE_DELAYS_MS.firstAudio after it is asked). On answer: the
 * session connects, is configured, then says the greeting; early: its connection was opened while
 * it rang (`connectEarly`, as prepareEarlyCall does), the session is configured on answer.
 *
 *   tsx bench/greeting-latency.ts [calls] [cascade|realtime]   prints one JSON line (also run by `npm run bench`)
 */
import { buildCallPlan } from '../media/src/agent/call-plan.ts';
import { speakEarly, warmModel } from '../media/src/agent/early-providers.ts';
import type { CallProviders } from '../media/src/agent/interfaces.ts';
import { platformProviders } from '../media/src/agent/providers.ts';
import { CallPipeline } from '../media/src/call/call-pipeline.ts';
import { SimulatedCaller } from '../media/src/streams/simulated-caller.ts';
import { startFakeVoiceProviders } from '../local/fakes/voice-providers.ts';
import { percentile } from './latency.ts';
import { FAKE_DELAYS_MS, REALTIME_FAKE_DELAYS_MS } from './voice-latency.ts';

/** A new connection to a provider: three round trips of 20 ms (TCP, TLS 1.3, the WebSocket upgrade or the request). */
export const FAKE_CONNECT_MS = 60;

type Mode = 'on_answer' | 'early';

type Engine = 'cascade' | 'realtime';

export interface GreetingLatencyFigures {
  engine: Engine;
  calls: number;
  fakeDelaysMs: (typeof FAKE_DELAYS_MS | typeof REALTIME_FAKE_DELAYS_MS) & { connect: number };
  /** Answer to the greeting's first frame sent (ms), per mode. */
  on_answer: { p50: number; p95: number; max: number };
  early: { p50: number; p95: number; max: number };
}

export async function measureGreetingLatency(
  calls: number,
  engine: Engine = 'cascade',
): Promise<GreetingLatencyFigures> {
  const fakes = await startFakeVoiceProviders({
    deepgram: { finalDelayMs: FAKE_DELAYS_MS.stt, connectDelayMs: FAKE_CONNECT_MS },
    openai: { firstTokenDelayMs: FAKE_DELAYS_MS.llm, connectDelayMs: FAKE_CONNECT_MS },
    elevenlabs: { firstByteDelayMs: FAKE_DELAYS_MS.tts, connectDelayMs: FAKE_CONNECT_MS },
    realtime: {
      transcriptionDelayMs: REALTIME_FAKE_DELAYS_MS.transcription,
      firstAudioDelayMs: REALTIME_FAKE_DELAYS_MS.firstAudio,
      connectDelayMs: FAKE_CONNECT_MS,
    },
  });
  const platform = platformProviders(fakes.settings, fakes.readKeys);
  const providers: Required<Omit<CallProviders, 'realtime'>> = {
    stt: await platform.stt(),
    llm: await platform.llm(),
    tts: await platform.tts(),
  };
  const plan = buildCallPlan({
    agentName: 'Bench',
    workflowDefinition: { greeting: 'Hello {{initial_context.name}}, this is the clinic.' },
    workflowConfigurations: { max_call_seconds: 3600, silence_timeout_seconds: 120, engine },
    templateContextVariables: {},
    initialContext: { name: 'Anna' },
    dispositionCodes: { done: 'Done' },
    passages: [],
    tools: [],
    memories: [],
  });
  const { language, voice, firstMessage } = plan.settings;

  /** One call: its greeting's delay from the answer (ms). */
  async function greetingDelay(mode: Mode, index: number): Promise<number> {
    let callProviders: CallProviders = providers;
    let release = async () => {};
    if (engine === 'realtime') {
      // A session per call, as call-sessions.ts makes it: the fake counts its connection's setup anew.
      const realtime = (await platform.realtime()).call();
      if (mode === 'early') await realtime.connectEarly();
      callProviders = { stt: realtime.listener, tts: realtime.voice, llm: providers.llm, realtime };
    } else if (mode === 'early') {
      const speaking = speakEarly(providers.tts, firstMessage!.trim(), { voice, language });
      await Promise.all([speaking.synthesized, warmModel(providers.llm)]);
      callProviders = { ...providers, tts: speaking.provider };
      release = () => speaking.release();
    }
    let firstFrame!: (at: number) => void;
    const greeted = new Promise<number>((resolve) => (firstFrame = resolve));
    const session = new CallPipeline({
      prepare: async () => ({ plan, providers: callProviders, organizationId: 1 }),
      send: (message) => {
        if ((message as { event: string }).event === 'media') firstFrame(performance.now());
      },
    });
    const caller = new SimulatedCaller({ runRef: `0.0.${index}` });
    const answered = performance.now();
    for (const message of caller.start()) await session.handle(message);
    const delay = (await greeted) - answered;
    await session.opened;
    await (await session.finish('stop')).recording?.dispose();
    await release();
    return delay;
  }

  const delays: Record<Mode, number[]> = { on_answer: [], early: [] };
  try {
    // The first calls of each mode warm the JIT; then the modes alternate.
    for (let call = 0; call < calls + 4; call += 1) {
      const mode: Mode = call % 2 === 0 ? 'on_answer' : 'early';
      const delay = await greetingDelay(mode, call);
      if (call >= 4) delays[mode].push(delay);
    }
  } finally {
    await fakes.stop();
  }
  const round = (value: number) => Math.round(value * 10) / 10;
  const figures = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)), max: round(sorted.at(-1)!) };
  };
  return {
    engine,
    calls,
    fakeDelaysMs: { ...(engine === 'realtime' ? REALTIME_FAKE_DELAYS_MS : FAKE_DELAYS_MS), connect: FAKE_CONNECT_MS },
    on_answer: figures(delays.on_answer),
    early: figures(delays.early),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const engine = process.argv[3] === 'realtime' ? 'realtime' : 'cascade';
  console.log(JSON.stringify(await measureGreetingLatency(Number(process.argv[2] ?? 100), engine)));
}
