/**
 * A call's opening, once its parts are assembled (call-parts.ts): its first words and, on the
 * phone, its speech-to-text stream. The opening words do not wait for the stream: the caller's
 * audio is held while it opens (caller-turns.ts) and reaches it then, so the greeting's first
 * frame is only as far from the answer as its speech; a stream that cannot open fails the call.
 */
import type { CallParts } from './call-parts.ts';
import type { LogFn } from './call-types.ts';
import type { CallerTurns } from './caller-turns.ts';
import type { Speaker } from './reply.ts';
import type { TurnLatency } from './turn-latency.ts';

/** What the opening works with in the rest of the pipeline (call-pipeline.ts). */
export interface OpeningContext {
  chat: boolean;
  speaker: Speaker;
  turns: CallerTurns;
  latency: TurnLatency;
  log: LogFn;
  runRef(): string | null;
  /** The call's time (ms from its start). */
  nowMs(): number;
  /** The brain answers the conversation so far. */
  answer(): void;
  /** Reads the call's clocks (a chat's, on wall time). */
  checkClock(): void;
  fail(error: unknown): void;
}

/**
 * Says the call's first words: the greeting (the first message), or the model's answer without
 * one; back from a transfer nobody took, the model's answer to what happened. Resolves once a
 * phone call's speech-to-text stream is open.
 */
export async function openCall(parts: CallParts, context: OpeningContext): Promise<void> {
  const { call, brain, clocks } = parts;
  const { speaker, latency } = context;
  const { firstMessage } = call.plan.settings;
  clocks.activity(context.nowMs());
  if (context.chat) {
    clocks.tickEvery(() => context.checkClock());
    latency.greets();
    return firstMessage ? speaker.say(firstMessage, false, brain.interruptible()) : context.answer();
  }
  const listening = context.turns.listen(call, {
    reconnecting: (reason) => {
      context.log('warn', 'speech-to-text stream dropped: reconnecting', { runRef: context.runRef(), reason });
      call.runLog?.('WARN', `Speech-to-text stream dropped (${reason}); reconnected, the call goes on`);
    },
    failed: (error) => context.fail(error),
  });
  if (call.resume) {
    // Back from a transfer nobody took: the model knows the conversation and what happened.
    brain.restore(call.resume.history, call.resume.note);
    context.answer();
  } else {
    latency.greets();
    if (firstMessage) speaker.say(firstMessage, false, brain.interruptible());
    else context.answer();
  }
  await listening;
}
