import type { CallClock } from './call-types.ts';

/**
 * A call's time: ms since its stream started, on the provider's media clock (the timestamps of the
 * caller's audio), or wall time when that is ahead of it. Tests drive the wall clock, so every
 * part that reads this is deterministic.
 */
export class MediaClock implements CallClock {
  private startEpochMs: number | null = null;
  private lastMediaMs = 0;

  /** `wall`: epoch milliseconds. */
  constructor(readonly wall: () => number) {}

  get started(): boolean {
    return this.startEpochMs !== null;
  }

  /** Epoch ms of the start, or null before it. */
  get startedAtEpochMs(): number | null {
    return this.startEpochMs;
  }

  start(): void {
    this.startEpochMs = this.wall();
  }

  /** The caller's audio stamped `atMs` arrived: media time has reached it. */
  reached(atMs: number): void {
    this.lastMediaMs = Math.max(this.lastMediaMs, atMs);
  }

  /** Ms since start: the provider's media clock, or wall time when ahead of it. */
  nowMs(): number {
    if (this.startEpochMs === null) return 0;
    return Math.max(this.lastMediaMs, this.wall() - this.startEpochMs, 0);
  }

  isoAt(offsetMs: number): string {
    return new Date((this.startEpochMs ?? this.wall()) + Math.round(offsetMs)).toISOString();
  }
}
