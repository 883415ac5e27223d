import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm test`: `vitest run` (extra arguments go to it) and the checks (scripts/checks.ts) at once, the
 * checks at the lowest CPU priority. The tests leave a core idle for much of their run (integration
 * files wait on calls in real time), and the checks, about two minutes of CPU, fill that time instead
 * of running before the tests; when the tests need both cores the checks wait. The checks' output is
 * printed after the tests' so the two never interleave; either failing fails the run.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

const exited = (child: ChildProcess) =>
  new Promise<number>((resolve) => {
    child.on('error', (error) => {
      console.error(error.message);
      resolve(1);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });

const startedAt = Date.now();
const checks = spawn(bin('tsx'), ['scripts/checks.ts', '--low-priority'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'pipe'],
});
const checksOutput: Buffer[] = [];
checks.stdout!.on('data', (chunk: Buffer) => checksOutput.push(chunk));
checks.stderr!.on('data', (chunk: Buffer) => checksOutput.push(chunk));
const checksDone = exited(checks).then((code) => ({ code, seconds: (Date.now() - startedAt) / 1000 }));

const tests = await exited(spawn(bin('vitest'), ['run', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' }));
const { code: checksCode, seconds } = await checksDone;
process.stdout.write(`\nChecks (beside the tests, ended ${seconds.toFixed(1)} s after the start):\n`);
process.stdout.write(Buffer.concat(checksOutput));
process.exit(tests || checksCode);
