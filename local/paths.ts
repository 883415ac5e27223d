import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** Repository root, from this file's place in `local/`. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Persistent local data (git-ignored); `npm run reset` deletes it. */
export const LOCAL_DATA_DIR = join(REPO_ROOT, '.local-data');

/** The environment of the running local stack (endpoints, table), for the operator CLI. */
export const LOCAL_STACK_ENV_FILE = join(LOCAL_DATA_DIR, 'stack-env.json');
