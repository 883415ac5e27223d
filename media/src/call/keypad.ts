import type { VoiceSettings } from '../agent/call-plan.ts';
import { FRAME_MS } from './media-stream-frames.ts';

/** An entry of keys the caller pressed: the caller's turn (its keys may be none: the end key alone). */
export interface KeypadEntry {
  keys: string;
  /** From the first key to the last, a key press lasting a frame at least (media time). */
  startMs: number;
  endMs: number;
}

/** A key of a phone's keypad (DTMF). */
export const isKey = (key: string): boolean => /^[0-9*#A-D]$/.test(key);

/** An entry as the caller's turn: its transcript line, and what the model is told. */
export const keypadTurn = ({ keys, startMs, endMs }: KeypadEntry, isoAt: (ms: number) => string) => ({
  fragment: { timestamp: isoAt(startMs), end: isoAt(endMs), role: 'user' as const, text: `[pressed ${keys}]` },
  text: `(The caller pressed these keys on the phone's keypad: ${keys})`,
});

/**
 * The keys the caller presses, gathered into an entry that ends with the end key (not part of
 * it), at `collectDigits` keys, or `timeoutMs` after the last key (the agent's `keypad` setting).
 */
export class Keypad {
  /** Keys pressed in the entry under way, and when the first and last one were (media time). */
  private pendingKeys = '';
  private firstKeyMs = 0;
  private lastKeyMs = 0;

  constructor(private readonly settings: VoiceSettings['keypad']) {}

  /** An entry is under way. */
  get pending(): boolean {
    return this.pendingKeys !== '';
  }

  /** A valid key (isKey) pressed at `atMs`: the entry it ends, or null while it goes on. */
  press(key: string, atMs: number): KeypadEntry | null {
    this.lastKeyMs = atMs;
    if (!this.pendingKeys) this.firstKeyMs = this.lastKeyMs;
    if (key === this.settings.endKey) return this.end();
    this.pendingKeys += key;
    const { collectDigits } = this.settings;
    return collectDigits !== null && this.pendingKeys.length >= collectDigits ? this.end() : null;
  }

  /** The entry under way, ended by the pause after its last key once it has lasted `timeoutMs`. */
  timedOut(nowMs: number): boolean {
    return this.pending && nowMs - this.lastKeyMs >= this.settings.timeoutMs;
  }

  end(): KeypadEntry {
    const keys = this.pendingKeys;
    this.pendingKeys = '';
    return { keys, startMs: this.firstKeyMs, endMs: Math.max(this.lastKeyMs, this.firstKeyMs + FRAME_MS) };
  }
}
