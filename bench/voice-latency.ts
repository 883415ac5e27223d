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
 *   tsx bench/voice-latency.ts [turns]      prints one JSON line (also run by `npm run bench`)
 */
import { buildCallPlan } from '../media/src/agent/call-plan.ts';
import { ENDPOINTING_MS } from '../media/src/agent/deepgram-speech-to-text.ts';
import { platformProviders } from '../media/src/agent/providers.ts';
import { CallPipeline } from '../media/src/call/call-pipeline.ts';
import { SimulatedCaller } from '../media/src/streams/simulated-caller.ts';
import { startFakeVoiceProviders } from '../local/fakes/voice-providers.ts';
import { percentile } from './latency.ts';

export const FAKE_DELAYS_MS = { stt: 50, llm: 100, tts: 80 } as const;
const providerMs = FAKE_DELAYS_MS.stt + FAKE_DELAYS_MS.llm + FAKE_DELAYS_MS.tts;

export interface VoiceLatencyFigures {
  turns: number;
  fakeDelaysMs: typeof FAKE_DELAYS_MS;
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
): Promise<VoiceLatencyFigures> {
  const fakes = await startFakeVoiceProviders({
    deepgram: { finalDelayMs: FAKE_DELAYS_MS.stt },
    openai: { firstTokenDelayMs: FAKE_DELAYS_MS.llm },
    elevenlabs: { firstByteDelayMs: FAKE_DELAYS_MS.tts },
  });
  const platform = platformProviders(fakes.settings, fakes.readKeys);
  const providers = { stt: await platform.stt(), llm: await platform.llm(), tts: await platform.tts() };
  const plan = buildCallPlan({
    agentName: 'Bench',
    workflowDefinition,
    workflowConfigurations: { max_call_seconds: 3600, silence_timeout_seconds: 120 },
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
    turns,
    fakeDelaysMs: FAKE_DELAYS_MS,
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
  console.log(JSON.stringify(await measureVoiceLatency(Number(process.argv[2] ?? 200))));
}
