/**
 * How long this process's main thread (its event loop) was ready to run but waited for a core,
 * from Linux's /proc/self/schedstat (ns on a core, ns waiting on a run queue). On a machine shared
 * with other work an event loop can stall while its own process uses half its core: the delay is
 * then the scheduler's, not the process's work. Null where the file does not exist (not Linux).
 */
import { readFileSync } from 'node:fs';

export interface SchedulerTimes {
  runMs: number;
  waitMs: number;
}

export function schedulerTimes(): SchedulerTimes | null {
  try {
    const [run, wait] = readFileSync('/proc/self/schedstat', 'utf8').split(' ').map(Number);
    return { runMs: run! / 1e6, waitMs: wait! / 1e6 };
  } catch {
    return null;
  }
}

/** The share of `windowMs` the main thread waited for a core since `start` (null off Linux). */
export function schedulerWaitShare(start: SchedulerTimes | null, windowMs: number): number | null {
  const now = schedulerTimes();
  return start && now ? (now.waitMs - start.waitMs) / windowMs : null;
}
