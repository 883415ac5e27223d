import { fileURLToPath } from 'node:url';

/** Repository root: entries, copyFiles and ASL paths in `shared/api` are relative to it. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
