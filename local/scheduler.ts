import { FUNCTION_GROUPS, type FunctionGroup } from '../shared/api/function-groups.ts';
import { invokeLocal } from './lambda-runtime.ts';

/**
 * Runs the scheduled functions (groups with a `schedule`) on timers, as EventBridge Scheduler
 * does on AWS; a run is skipped while the previous one is still going.
 */
export function startLocalScheduler(options: { intervalScale: number }): { stop: () => Promise<void> } {
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<unknown>>();
  for (const [name, group] of Object.entries(FUNCTION_GROUPS) as [string, FunctionGroup][]) {
    if (!group.schedule) continue;
    let busy = false;
    const tick = () => {
      if (busy) return;
      busy = true;
      const run = invokeLocal(name, group, { source: 'local.scheduler', time: new Date().toISOString() })
        .catch((error: unknown) => console.error(`Local scheduler: ${name} failed`, error))
        .finally(() => {
          busy = false;
          running.delete(run);
        });
      running.add(run);
    };
    timers.push(setInterval(tick, (group.schedule.everyMinutes * 60_000) / options.intervalScale));
  }
  return {
    stop: async () => {
      for (const timer of timers) clearInterval(timer);
      await Promise.allSettled([...running]);
    },
  };
}
