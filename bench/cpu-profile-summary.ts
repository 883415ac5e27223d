/**
 * Where a V8 CPU profile's time went (a run's `BENCH_CPU_PROFILE=<file>`, or `node --cpu-prof`'s
 * file): self time grouped by what spent it (a package, a project file, the garbage collector,
 * Node's HTTP and stream internals), then the functions that spent the most.
 *
 *   tsx bench/cpu-profile-summary.ts <file.cpuprofile> [functions to list, default 30]
 *
 * The profiler samples wall time: a sample taken while the process waited for a core is charged to
 * whatever ran last. On a loaded machine that inflates blocking system calls (a socket `writev` that
 * woke DynamoDB Local, which then took the core) far beyond their CPU; those and `(idle)` are
 * listed apart, and the shares are of the rest.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Time that is not the process's own CPU: waiting for work, or for a core inside a system call. */
const NOT_CPU = new Set(['(idle)', 'writev', 'writeUtf8String', 'writeBuffer', '(program)']);

const packageOf = (url: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];

/** What spent a frame's time: a package, a project folder's file, a part of Node, or V8 itself. */
function spender({ functionName, url }: ProfileNode['callFrame']): string {
  if (functionName === '(garbage collector)') return 'garbage collector';
  const pkg = packageOf(url);
  if (pkg) return pkg.startsWith('@smithy/') || pkg.startsWith('@aws-sdk/') ? 'AWS SDK (@smithy, @aws-sdk)' : pkg;
  if (/^node:(_http|net|http|events|buffer|internal\/(streams|stream_base|http|url|buffer))/.test(url))
    return 'Node: HTTP, sockets, streams, events';
  if (url.includes('undici')) return 'Node: fetch (undici)';
  if (
    /^node:internal\/(async_hooks|process\/task_queues|process\/promises|timers)/.test(url) ||
    functionName === 'runMicrotasks'
  )
    return 'Node: promises, ticks, async hooks, timers';
  if (url.startsWith('node:')) return 'Node: other';
  const project = /\/(local|shared|functions|bench|media)\/(.*)$/.exec(url);
  if (project) return `${project[1]}/${project[2]}`;
  return url ? 'other' : `V8: ${functionName}`;
}

function summarize(profile: Profile, functions = 30): string {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const selfTime = new Map<number, number>();
  profile.samples.forEach((id, i) => selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const bySpender = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const apart = new Map<string, number>();
  for (const [id, micros] of selfTime) {
    const frame = frames.get(id)!;
    // The profiler's own work (when started through the inspector) is not the process's either.
    if (NOT_CPU.has(frame.functionName) || frame.url === 'node:inspector') {
      const name = frame.url === 'node:inspector' ? 'the profiler' : frame.functionName;
      apart.set(name, (apart.get(name) ?? 0) + micros);
      continue;
    }
    const spent = spender(frame);
    bySpender.set(spent, (bySpender.get(spent) ?? 0) + micros);
    const where = packageOf(frame.url) ?? frame.url.replace(/^.*\/(local|shared|functions|bench|media)\//, '$1/');
    const name = `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  }
  const busy = [...bySpender.values()].reduce((sum, micros) => sum + micros, 0);
  const rows = (counts: Map<string, number>, limit: number) =>
    [...counts]
      .sort(([, a], [, b]) => b - a)
      .slice(0, limit)
      .map(
        ([name, micros]) =>
          `${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${(micros / 1e6).toFixed(2).padStart(7)} s  ${name}`,
      );
  return [
    `busy ${(busy / 1e6).toFixed(1)} s sampled; apart (not the process's CPU): ${[...apart]
      .map(([name, micros]) => `${name} ${(micros / 1e6).toFixed(1)} s`)
      .join(', ')}`,
    '-- self time by what spent it',
    ...rows(bySpender, 40),
    `-- the ${functions} functions with the most self time`,
    ...rows(byFunction, functions),
  ].join('\n');
}

const [file, functions] = process.argv.slice(2);
if (!file) throw new Error('Usage: tsx bench/cpu-profile-summary.ts <file.cpuprofile> [functions]');
console.log(summarize(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(functions ?? 30)));
