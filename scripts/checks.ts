import { spawn } from 'node:child_process';
import { constants, setPriority } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The checks `npm test` runs beside the tests (scripts/test.ts): the type checks, ESLint, Prettier
 * and the OpenAPI lint, in two lanes at once. Each tool keeps one core busy and CI has two, so two
 * lanes of about equal length take half the time of one after the other. Within a lane the commands
 * run in order and the first failure ends the lane; the other lane finishes, then any failure fails
 * the run. Each command's output is printed whole when it ends, so the lanes' outputs never
 * interleave. With `--low-priority` (how `npm test` runs them) this process and every command it
 * starts run at the lowest CPU priority: they take only the CPU the tests leave idle.
 */
if (process.argv.includes('--low-priority')) setPriority(constants.priority.PRIORITY_LOW);
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
/**
 * The type checks use TypeScript 7's native compiler (the `typescript-native` alias): about a quarter
 * of TypeScript 5's CPU. `typescript` itself stays 5.x, the API typescript-eslint and
 * openapi-typescript need; both binaries are named `tsc`, so this one is called by its path.
 */
const TSC = join(root, 'node_modules', 'typescript-native', 'bin', 'tsc');

const LANES: readonly (readonly string[])[][] = [
  [
    [TSC, '--noEmit', '-p', '.'],
    [TSC, '--noEmit', '-p', 'web'],
    ['prettier', '--check', '.'],
  ],
  [
    ['eslint', '.'],
    ['tsx', 'scripts/lint-openapi.ts'],
  ],
];

/** Runs one command; prints its output whole when it ends; resolves to whether it passed. */
function run([command, ...args]: readonly string[]): Promise<boolean> {
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command!.includes('/') ? command! : bin(command!), args, {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    const done = (passed: boolean, note = '') => {
      const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
      process.stdout.write(
        `\n> ${[command!.includes('/') ? relative(root, command!) : command, ...args].join(' ')} (${seconds} s${passed ? '' : ', failed'}${note})\n`,
      );
      process.stdout.write(Buffer.concat(output));
      resolve(passed);
    };
    child.on('error', (error) => done(false, `: ${error.message}`));
    child.on('close', (code) => done(code === 0));
  });
}

async function lane(commands: readonly (readonly string[])[]): Promise<boolean> {
  for (const command of commands) if (!(await run(command))) return false;
  return true;
}

const results = await Promise.all(LANES.map(lane));
if (results.includes(false)) {
  console.error('\nChecks failed: see the output above.');
  process.exit(1);
}
