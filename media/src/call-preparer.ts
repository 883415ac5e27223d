/**
 * Calls made ready while the phone rings: when a call is dialed, the task is asked to prepare it
 * (POST PREPARE_PATH, prepare-endpoint.ts) and makes ready what its first words need
 * (call-sessions.ts, `prepareEarlyCall`: the setup read, the greeting's speech, the model's
 * connection). The stream of the answered call takes its preparation here; one never
 * answered (busy, no answer, or streamed to another task) is released after PREPARED_CALL_TTL_MS.
 */
import type { LogFn } from './call/call-types.ts';
import type { CallSetup } from './call-answer.ts';

/** Twilio rings an unanswered call for 60 s by default (Telnyx 30 s); a preparation outlives that a little. */
export const PREPARED_CALL_TTL_MS = 75_000;

/**
 * A call prepared before its answer: what it needs (its plan without the notes about the caller,
 * read at the answer), and how to close what it did not take.
 */
export interface EarlyCall extends CallSetup {
  /** What was opened for it, in words (the run's log line when the call starts with them). */
  parts: string[];
  /** Closes what the call did not take (idempotent). */
  release(): Promise<void>;
}

export type PrepareOutcome = 'preparing' | 'already' | 'full';

interface Entry {
  early: Promise<EarlyCall | undefined>;
  expiry: NodeJS.Timeout;
}

export class CallPreparer {
  private readonly entries = new Map<string, Entry>();
  private readonly releases = new Set<Promise<void>>();

  constructor(
    private readonly options: {
      log: LogFn;
      /** How long a preparation waits for its call's stream. */
      ttlMs?: number;
      /** Whether another call may be prepared, given how many are (the task's capacity). */
      room: (prepared: number) => boolean;
    },
  ) {}

  /** Calls prepared and not taken yet. */
  get size(): number {
    return this.entries.size;
  }

  /** Starts preparing the call of `runRef` (`build`), unless it is already or the task has no room. */
  prepare(runRef: string, build: () => Promise<EarlyCall | undefined>): PrepareOutcome {
    if (this.entries.has(runRef)) return 'already';
    if (!this.options.room(this.entries.size)) return 'full';
    const early = build().catch((error: unknown) => {
      this.options.log('warn', 'call not prepared early: its first turn opens what it needs', {
        runRef,
        error: String(error),
      });
      return undefined;
    });
    const expiry = setTimeout(() => {
      if (this.entries.get(runRef)?.early !== early) return;
      this.entries.delete(runRef);
      this.options.log('info', 'prepared call not answered here: released', { runRef });
      this.release(early);
    }, this.options.ttlMs ?? PREPARED_CALL_TTL_MS);
    expiry.unref();
    this.entries.set(runRef, { early, expiry });
    return 'preparing';
  }

  /** The preparation of the call whose stream starts now, if any: the call owns it from here. */
  take(runRef: string): Promise<EarlyCall | undefined> | undefined {
    const entry = this.entries.get(runRef);
    if (!entry) return undefined;
    this.entries.delete(runRef);
    clearTimeout(entry.expiry);
    return entry.early;
  }

  /** Releases every preparation (the task stops); resolves when all are closed. */
  async close(): Promise<void> {
    for (const [runRef, entry] of this.entries) {
      clearTimeout(entry.expiry);
      this.entries.delete(runRef);
      this.release(entry.early);
    }
    await Promise.all([...this.releases]);
  }

  private release(early: Promise<EarlyCall | undefined>): void {
    const done = early.then((call) => call?.release()).catch(() => {});
    this.releases.add(done);
    void done.finally(() => this.releases.delete(done));
  }
}
