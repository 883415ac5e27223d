import { expect, vi } from 'vitest';
import { buildCallPlan, type CallInput } from '../../media/src/agent/call-plan.ts';
import { OpenAiRealtime } from '../../media/src/agent/openai-realtime.ts';
import { CallPipeline } from '../../media/src/call/call-pipeline.ts';
import type { CallPipelineOptions, PreparedCall } from '../../media/src/call/call-types.ts';
import { SimulatedCaller, type MediaStreamMessage } from '../../media/src/streams/simulated-caller.ts';
import { startFakeRealtime, type FakeRealtime, type FakeRealtimeOptions } from '../../local/fakes/openai-realtime.ts';
import { callInput, voiceFakes } from './voice.ts';

export const REALTIME_BASE = Date.parse('2026-11-23T10:00:00.000Z');

/** What a test's realtime call leaves to tear down, in the order given (stopped in reverse). */
export type Cleanups = (() => Promise<void>)[];

/** A Media Streams message the pipeline sent (`media`, `mark`, `clear`). */
export type SentFrame = { event: string; media?: { payload: string; track?: string }; mark?: { name: string } };

/**
 * A call of the `realtime` engine: a SimulatedCaller's Media Streams frames into a CallPipeline
 * whose brain is the realtime model, through the `openai` package's WebSocket client against the
 * local Realtime fake (TLS with its own certificate, as the real API's wss). The session's clock
 * follows the media timestamps. The other fakes (the tool endpoint) are the cascade's
 * (./voice.ts).
 */
export async function realtimeCall(
  cleanups: Cleanups,
  input: Partial<CallInput>,
  options: Omit<FakeRealtimeOptions, 'apiKey'> = {},
  timing?: CallPipelineOptions['timing'],
) {
  const fakes = await voiceFakes();
  cleanups.push(fakes.stop);
  const fake = await startFakeRealtime({ apiKey: 'rt-key', ...options });
  cleanups.push(fake.stop);
  const client = new OpenAiRealtime({ apiUrl: fake.url, apiKey: 'rt-key', model: 'gpt-realtime', ca: fake.ca });
  const runLogs: string[] = [];
  /** The session's events as the call's client got them (`type`s, in order). */
  const events: string[] = [];
  const prepare = async (): Promise<PreparedCall> => {
    const realtime = client.call();
    realtime.on((event) => void events.push(event.type));
    const { llm } = await fakes
      .prepare(callInput())()
      .then((call) => call.providers);
    return {
      plan: buildCallPlan(callInput(input)),
      providers: { stt: realtime.listener, tts: realtime.voice, llm, realtime },
      organizationId: 1,
      toolFetch: fakes.tools.fetch,
      runLog: (_level, message) => void runLogs.push(message),
    };
  };
  let now = REALTIME_BASE;
  const sent: SentFrame[] = [];
  const session = new CallPipeline({
    prepare,
    send: (message) => sent.push(message as SentFrame),
    clock: () => now,
    timing,
  });
  cleanups.push(async () => (await session.finish('closed')).recording?.dispose());
  const caller = new SimulatedCaller({ streamSid: 'MZrt', runRef: '1.2.3' });
  const feed = async (messages: MediaStreamMessage[]) => {
    for (const message of messages) {
      const media = message.media as { timestamp?: string } | undefined;
      if (media?.timestamp !== undefined) now = REALTIME_BASE + Number(media.timestamp);
      await session.handle(message);
    }
  };
  const lines = () => session.fragments.map(({ role, text }) => `${role}: ${text}`);
  const agentLines = () =>
    session.fragments.filter((fragment) => fragment.role === 'assistant').map((fragment) => fragment.text);
  /** The caller says `text`, then is silent past the model's end of turn; resolves once the agent has answered. */
  const say = async (text: string) => {
    const answers = agentLines().length;
    await feed([...caller.say(text), ...caller.silence(700)]);
    await vi.waitFor(() => expect(agentLines().length).toBeGreaterThan(answers), { timeout: 5000 });
    await session.idle();
  };
  /** Silence until what the agent sent has played, plus `extraMs`. */
  const listen = async (extraMs = 200) =>
    feed(caller.silence(Math.max(0, session.playbackEndMs - caller.elapsedMs) + extraMs));
  await feed(caller.start());
  await session.opened;
  await session.idle();
  return { fake, session, caller, sent, feed, say, listen, lines, agentLines, runLogs, fakes, events };
}

/** What the fake billed: every response's usage (`response.done`) added up, field by field. */
export function billed(fake: FakeRealtime) {
  const sum = (pick: (usage: NonNullable<FakeRealtime['responses'][number]['usage']>) => number) =>
    fake.responses.reduce((total, response) => total + (response.usage ? pick(response.usage) : 0), 0);
  return {
    inputTextTokens: sum((usage) => usage.input_token_details.text_tokens),
    inputAudioTokens: sum((usage) => usage.input_token_details.audio_tokens),
    cachedTextTokens: sum((usage) => usage.input_token_details.cached_tokens_details.text_tokens),
    cachedAudioTokens: sum((usage) => usage.input_token_details.cached_tokens_details.audio_tokens),
    outputTextTokens: sum((usage) => usage.output_token_details.text_tokens),
    outputAudioTokens: sum((usage) => usage.output_token_details.audio_tokens),
  };
}
