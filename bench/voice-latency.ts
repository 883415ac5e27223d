/**
 * The voice pipeline's own latency: from the caller's end of speech to the first agent audio frame
 * sent, minus the fixed delays of the local provider fakes (speech-to-text final result, model's
 * first token, text-to-speech's first byte). The real clients (Deepgram SDK, openai, ElevenLabs SDK)
 * talk to the fakes over loopback, in this one process, as a media task would.
 *
 * "End of speech" is the moment the caller's audio that completes the endpointing pause has been
 * handed to the session: before it nothing could know the turn was over. Endpointing itself (300 ms
 * of silence, audio time) is turn-taking policy, not overhead; the audio is sent faster than real
 * time, so it costs no wall time here.
 *
 * The same turns with an agent of the `realtime` engine (its fake: REALTIME_FAKE_DELAYS_MS) give
 * the speech-to-speech model's figures on the same fakes, the same pause ending each turn.
 *
 *   tsx bench/voice-latency.ts [turns] [cascade|realtime]   prints one JSON line (also run by `npm run bench`)
 */
import { buildCallPlan } from '../media/src/agent/call-plan.ts';
import { ENDPOINTING_MS } from '../media/src/agent/deepgram-speech-to-text.ts';
import { platformProviders } from '../media/src/agent/providers.ts';
import { CallPipeline } from '../media/src/call/call-pipeline.ts';
import { SimulatedCaller } from '../media/src/streams/simulated-caller.ts';
import { startFakeVoiceProviders } from '../local/fakes/voice-providers.ts';
import { percentile } from './latency.ts';

export const FAKE_DELAYS_MS = { stt: 50, llm: 100, tts: 80 } as const;
/**
 * The realtime engine's fake (engine `realtime`): the model's transcript of a turn 50 ms after its
 * commit (as the cascade's final result), its first audio 180 ms after the response is asked for
 * (the cascade's model and speech together, less a hop: one model both writes and speaks).
 */
export const REALTIME_FAKE_DELAYS_MS = { transcription: 50, firstAudio: 180 } as const;
const PROVIDER_MS = {
  cascade: FAKE_DELAYS_MS.stt + FAKE_DELAYS_MS.llm + FAKE_DELAYS_MS.tts,
  realtime: REALTIME_FAKE_DELAYS_MS.transcription + REALTIME_FAKE_DELAYS_MS.firstAudio,
} as const;

export interface VoiceLatencyFigures {
  engine: 'cascade' | 'realtime';
  turns: number;
  fakeDelaysMs: typeof FAKE_DELAYS_MS | typeof REALTIME_FAKE_DELAYS_MS;
  overhead: { p50: number; p95: number; max: number };
  total: { p50: number; p95: number };
  /** Share of the p50 total that the providers' fixed delays take. */
  providerShareP50: number;
}

/** The flat prompt the bench's agent has by default. */
export const FLAT_DEFINITION = { greeting: 'Hello.' };

export async function measureVoiceLatency(
  turns: number,
  workflowDefinition: Record<string, unknown> = FLAT_DEFINITION,
  engine: VoiceLatencyFigures['engine'] = 'cascade',
): Promise<VoiceLatencyFigures> {
  const fakes = await startFakeVoiceProviders({
    deepgram: { finalDelayMs: FAKE_DELAYS_MS.stt },
    openai: { firstTokenDelayMs: FAKE_DELAYS_MS.llm },
    elevenlabs: { firstByteDelayMs: FAKE_DELAYS_MS.tts },
    realtime: {
      transcriptionDelayMs: REALTIME_FAKE_DELAYS_MS.transcription,
      firstAudioDelayMs: REALTIME_FAKE_DELAYS_MS.firstAudio,
    },
  });
  const platform = platformProviders(fakes.settings, fakes.readKeys);
  const realtime = engine === 'realtime' ? (await platform.realtime()).call() : undefined;
  const providers = realtime
    ? { stt: realtime.listener, llm: await platform.llm(), tts: realtime.voice, realtime }
    : { stt: await platform.stt(), llm: await platform.llm(), tts: await platform.tts() };
  const providerMs = PROVIDER_MS[engine];
  const plan = buildCallPlan({
    agentName: 'Bench',
    workflowDefinition,
    workflowConfigurations: { max_call_seconds: 3600, silence_timeout_seconds: 120, engine },
    templateContextVariables: {},
    initialContext: {},
    dispositionCodes: { done: 'Done' },
    // Every question matches this passage: each turn searches the knowledge base and answers from it.
    passages: [
      {
        id: 'p1',
        document_id: 'doc_bench',
        title: 'Answers',
        text: 'Every question number has the same short answer.',
      },
    ],
    tools: [],
    memories: [],
  });
  let endOfSpeech: number | null = null;
  let firstFrame: ((at: number) => void) | null = null;
  const session = new CallPipeline({
    prepare: async () => ({ plan, providers, organizationId: 1 }),
    send: (message) => {
      if ((message as { event: string }).event === 'media' && endOfSpeech !== null && firstFrame)
        firstFrame(performance.now());
    },
  });
  const caller = new SimulatedCaller({ runRef: '0.0.0' });
  for (const message of caller.start()) await session.handle(message);
  await session.opened;
  await session.idle();

  const totals: number[] = [];
  try {
    for (let turn = 0; turn < turns + 5; turn += 1) {
      // Quiet until the agent's last answer has played, then one line and the endpointing pause.
      for (const message of caller.silence(Math.max(0, session.playbackEndMs - caller.elapsedMs) + 100))
        await session.handle(message);
      for (const message of caller.say(`Question number ${turn}.`)) await session.handle(message);
      const pause = caller.silence(ENDPOINTING_MS);
      for (const message of pause.slice(0, -1)) await session.handle(message);
      const answered = new Promise<number>((resolve) => (firstFrame = resolve));
      endOfSpeech = performance.now();
      await session.handle(pause.at(-1)!);
      // A phone stream goes on: silence every 20 ms while the answer comes (speech-to-text is sent
      // two frames to a message, so the pause's last frame may wait for the next one).
      const stream = setInterval(() => void session.handle(caller.silence(20)[0]!), 20);
      const at = await answered.finally(() => clearInterval(stream));
      firstFrame = null;
      if (turn >= 5) totals.push(at - endOfSpeech); // the first turns warm the JIT and connections
      endOfSpeech = null;
      await session.idle();
    }
  } finally {
    await (await session.finish('stop')).recording?.dispose();
    await fakes.stop();
  }
  const sortedTotals = [...totals].sort((a, b) => a - b);
  const overheads = sortedTotals.map((total) => total - providerMs);
  const round = (value: number) => Math.round(value * 10) / 10;
  const totalP50 = percentile(sortedTotals, 50);
  return {
    engine,
    turns,
    fakeDelaysMs: engine === 'realtime' ? REALTIME_FAKE_DELAYS_MS : FAKE_DELAYS_MS,
    overhead: {
      p50: round(percentile(overheads, 50)),
      p95: round(percentile(overheads, 95)),
      max: round(overheads.at(-1)!),
    },
    total: { p50: round(totalP50), p95: round(percentile(sortedTotals, 95)) },
    providerShareP50: Math.round((providerMs / totalP50) * 1000) / 1000,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const engine = process.argv[3] === 'realtime' ? 'realtime' : 'cascade';
  console.log(JSON.stringify(await measureVoiceLatency(Number(process.argv[2] ?? 200), FLAT_DEFINITION, engine)));
}
