import { setImmediate as tick } from 'node:timers/promises';
import type { CallPipeline } from '../../media/src/call/call-pipeline.ts';

/**
 * A call driven on its media clock, for timeline tests of the pipeline (turn-taking.test.ts,
 * realtime-interruptions.test.ts): `clock` is the pipeline's, `start` begins its stream, and
 * `until(ms)` sends the caller's silent 20 ms frames up to that time, each one let through the
 * pipeline before the next, the clock following their timestamps.
 */
export function mediaTimeline(base: number) {
  let now = base;
  let mediaMs = 0;
  let pipeline: CallPipeline | null = null;
  return {
    clock: () => now,
    async start(started: CallPipeline): Promise<void> {
      pipeline = started;
      await started.handle({ event: 'start', start: { streamSid: 'MZ1', customParameters: { run_ref: '1.2.3' } } });
      await started.opened;
    },
    async until(atMs: number): Promise<void> {
      for (; mediaMs < atMs; mediaMs += 20) {
        now = base + mediaMs;
        await pipeline!.handle({
          event: 'media',
          media: { payload: Buffer.alloc(160, 0xff).toString('base64'), timestamp: mediaMs },
        });
        await tick();
      }
      now = base + atMs;
    },
  };
}
