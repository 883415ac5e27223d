import type { CallClock } from './call-types.ts';

/**
 * A call's time: ms since its stream started, on the provider's media clock (the timestamps of the
 * caller's audio), or wall time when that is ahead of it. Tests drive the wall clock, so every
 * part that reads this is deterministic.
 */
export class MediaClock implements CallClock {
  private startEpochMs: number | null = null;
  private lastMediaMs = 0;
  /** Wall time (epoch ms) when the latest media timestamp arrived. */
  private lastMediaWall = 0;
  private lastPreciseMs = 0;

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
    if (atMs <= this.lastMediaMs) return;
    this.lastMediaMs = atMs;
    this.lastMediaWall = this.wall();
  }

  /** Ms since start: the provider's media clock, or wall time when ahead of it. */
  nowMs(): number {
    if (this.startEpochMs === null) return 0;
    return Math.max(this.lastMediaMs, this.wall() - this.startEpochMs, 0);
  }

  /**
   * nowMs() to the millisecond: media time goes on between frames as wall time does (nowMs() steps
   * by a frame, 20 ms, while the provider's timestamps lead wall time); never goes back. What the
   * per-turn latency is timed with.
   */
  preciseMs(): number {
    if (this.startEpochMs === null) return 0;
    const wall = this.wall();
    const sinceFrame = this.lastMediaMs > 0 ? wall - this.lastMediaWall : 0;
    this.lastPreciseMs = Math.max(this.lastPreciseMs, this.lastMediaMs + sinceFrame, wall - this.startEpochMs);
    return this.lastPreciseMs;
  }

  isoAt(offsetMs: number): string {
    return new Date((this.startEpochMs ?? this.wall()) + Math.round(offsetMs)).toISOString();
  }
}
