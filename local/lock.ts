import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCAL_DATA_DIR } from './paths.ts';

const LOCK_FILE = join(LOCAL_DATA_DIR, 'stack.pid');

/** The pid of a local stack running on this data folder, if any. */
export function runningStackPid(): number | undefined {
  if (!existsSync(LOCK_FILE)) return undefined;
  const pid = Number(readFileSync(LOCK_FILE, 'utf8'));
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/** One stack per data folder: DynamoDB Local and s3rver cannot share their files. */
export function acquireStackLock(): void {
  const pid = runningStackPid();
  if (pid !== undefined && pid !== process.pid) {
    throw new Error(`The local stack is already running (pid ${pid}). Stop it first, or use another checkout.`);
  }
  writeFileSync(LOCK_FILE, String(process.pid));
}

export function releaseStackLock(): void {
  if (runningStackPid() === process.pid) rmSync(LOCK_FILE, { force: true });
}
