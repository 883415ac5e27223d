/**
 * How the agent's side ends a call: the hang-up (once, when its last words are sent) and a
 * provider's failure (the call cannot go on: it ends as failed, keeping what was recorded; the
 * caller hears the apology first unless text-to-speech is what failed, hung up at most
 * APOLOGY_LIMIT_MS later).
 */
import { ProviderError } from '../agent/interfaces.ts';
import type { HangUpInfo, LogFn, PreparedCall } from './call-types.ts';

/** The apology on a failure is cut off after this long, and the call hung up (wall time). */
const APOLOGY_LIMIT_MS = 15_000;

export interface CallEndingContext {
  log: LogFn;
  runRef: () => string | null;
  isEnded: () => boolean;
  /** How much of the agent's audio is still to play when it hangs up. */
  playbackRemainingMs: () => number;
  /** Stops the agent's answer and the caller's speech-to-text (a failure's first step). */
  silence: () => void;
  /** Says the last words; the hang-up follows once they are sent. */
  sayLast: (text: string) => void;
  onHangUp?: (info: HangUpInfo) => void;
}

export class CallEnding {
  wantsHangUp = false;
  failure: string | null = null;
  /** Resolves when the agent hung up (after its last words were sent) or a provider failed. */
  readonly hangUpRequested: Promise<HangUpInfo>;
  private resolveHangUp!: (info: HangUpInfo) => void;

  constructor(private readonly context: CallEndingContext) {
    this.hangUpRequested = new Promise((resolve) => (this.resolveHangUp = resolve));
  }

  hangUp(): void {
    this.wantsHangUp = true;
    const info = { playbackRemainingMs: Math.max(0, this.context.playbackRemainingMs()) };
    this.context.log('info', 'agent hangs up', { runRef: this.context.runRef(), ...info });
    this.resolveHangUp(info);
    this.context.onHangUp?.(info);
  }

  /** The call's failure (the first one counts); `call`: the prepared call, if it got that far. */
  fail(error: unknown, call: PreparedCall | undefined): void {
    this.failure = error instanceof Error ? error.message : String(error);
    this.context.log('error', 'call failed', { runRef: this.context.runRef(), error: this.failure });
    call?.runLog?.('ERROR', `Call failed: ${this.failure}`);
    this.context.silence();
    if (this.wantsHangUp) return;
    const speechFailed = error instanceof ProviderError && error.provider === call?.providers.tts?.name;
    if (!call || speechFailed) return this.hangUp();
    this.context.sayLast(call.plan.phrases.apology);
    setTimeout(() => {
      if (!this.wantsHangUp && !this.context.isEnded()) this.hangUp();
    }, APOLOGY_LIMIT_MS).unref();
  }
}
