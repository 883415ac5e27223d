import type { VoiceSettings } from '../agent/call-plan.ts';
import { UTTERANCE_END_MS } from '../agent/deepgram-speech-to-text.ts';

/**
 * Caller words that neither end in a final result nor get an `UtteranceEnd` for this long (media
 * time): the turn ends with what was heard, or, with nothing heard, it was a false start.
 */
export const STALLED_TURN_MS = UTTERANCE_END_MS + 1000;

/** How often a chat, which has no media clock, checks its idle and length limits (wall time). */
export const CHAT_CLOCK_MS = 1000;

/** What the time of the call calls for, most pressing first. */
export type ClockAction =
  'time-limit' | 'keypad-timeout' | 'stalled-turn' | 'chat-idle' | 'silence-prompt' | 'silence-goodbye';

/** Where the rest of the call stands when the clocks are read. */
export interface ClockState {
  /** The keypad entry under way has timed out. */
  keypadDue: boolean;
  /** The caller is saying words their turn has not ended on. */
  callerSpeaking: boolean;
  /** An answer is under way, or the caller's turn or keypad entry is. */
  busy: boolean;
  /** Where the agent's audio sent so far finishes playing (media time). */
  playbackEndMs: number;
}

type ClockSettings = Pick<VoiceSettings, 'maxCallMs' | 'silenceTimeoutMs' | 'chatIdleTimeoutMs'>;

/**
 * The call's clocks, on the media clock (so deterministic in tests): the longest call, a keypad
 * entry's pause, a stalled caller turn, the silence prompt and timeout, a chat left idle.
 */
export class CallClocks {
  private lastCallerActivityMs = 0;
  private silencePrompts = 0;
  private wallTicks: NodeJS.Timeout | undefined;

  constructor(
    private readonly settings: ClockSettings,
    private readonly chat: boolean,
  ) {}

  /** The caller did something (words, a key, a message, the end of a turn) at `atMs`. */
  activity(atMs: number): void {
    this.lastCallerActivityMs = atMs;
  }

  /** The caller said words or pressed a key: they are there (the silence prompt starts over). */
  heard(atMs: number): void {
    this.activity(atMs);
    this.silencePrompts = 0;
  }

  /** What is due at `nowMs`, if anything. */
  check(nowMs: number, state: ClockState): ClockAction | null {
    const { settings } = this;
    if (nowMs >= settings.maxCallMs) return 'time-limit';
    if (state.keypadDue) return 'keypad-timeout';
    // Neither a final result nor UtteranceEnd came: the turn ends with what was heard, if anything.
    if (state.callerSpeaking && nowMs - this.lastCallerActivityMs >= STALLED_TURN_MS) return 'stalled-turn';
    if (state.busy) return null;
    if (this.chat) return nowMs - this.lastCallerActivityMs < settings.chatIdleTimeoutMs ? null : 'chat-idle';
    const quietSince = Math.max(this.lastCallerActivityMs, state.playbackEndMs);
    if (nowMs - quietSince < settings.silenceTimeoutMs) return null;
    if (this.silencePrompts > 0) return 'silence-goodbye';
    this.silencePrompts = 1;
    return 'silence-prompt';
  }

  /** A chat has no media clock: `tick` runs every CHAT_CLOCK_MS of wall time until stop(). */
  tickEvery(tick: () => void): void {
    this.wallTicks = setInterval(tick, CHAT_CLOCK_MS);
    this.wallTicks.unref();
  }

  stop(): void {
    clearInterval(this.wallTicks);
  }
}
