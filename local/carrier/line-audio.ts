/**
 * How much of the callee's audio has gone out on a call's media stream (ms of audio, on the line's
 * own time). Answering-machine detection listens to that audio, so its verdicts follow it: a
 * verdict "4.5 s after the answer" comes once 4.5 s of the callee's audio went out, however late
 * the stream started or however slowly a loaded machine sent its frames (on wall time, the verdict
 * and the voicemail that follows it could come before the machine's greeting reached the platform).
 */
export class LineAudio {
  private sentMs = 0;
  private readonly waiting = new Set<{ ms: number; resolve: () => void }>();

  /** The callee's stream has sent `ms` of audio so far. */
  sent(ms: number): void {
    this.sentMs = ms;
    for (const waiter of this.waiting)
      if (waiter.ms <= ms) {
        this.waiting.delete(waiter);
        waiter.resolve();
      }
  }

  /** Resolves once `ms` of audio has gone out, or when `signal` aborts (the call is over). */
  reached(ms: number, signal: AbortSignal): Promise<void> {
    if (ms <= this.sentMs || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = {
        ms,
        resolve: () => {
          signal.removeEventListener('abort', abort);
          resolve();
        },
      };
      const abort = () => {
        this.waiting.delete(waiter);
        resolve();
      };
      signal.addEventListener('abort', abort, { once: true });
      this.waiting.add(waiter);
    });
  }
}
