import { buildCallPlan, type CallInput } from '../../media/src/agent/call-plan.ts';
import { OpenAiRealtime } from '../../media/src/agent/openai-realtime.ts';
import type { CallPipelineOptions, PreparedCall } from '../../media/src/call/call-types.ts';
import { startFakeRealtime, type FakeRealtime, type FakeRealtimeOptions } from '../../local/fakes/openai-realtime.ts';
import { simulatedCall } from './call-scenarios.ts';
import { callInput, voiceFakes } from './voice.ts';

export const REALTIME_BASE = Date.parse('2026-11-23T10:00:00.000Z');

/** What a test's realtime call leaves to tear down, in the order given (stopped in reverse). */
export type Cleanups = (() => Promise<void>)[];

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
  const call = await simulatedCall({
    base: REALTIME_BASE,
    prepare,
    timing,
    // The model's turn detection ends a turn after 300 ms of silence; its transcript follows.
    endOfTurnMs: 700,
    streamSid: 'MZrt',
    cleanups,
  });
  return { ...call, fake, runLogs, fakes, events };
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
