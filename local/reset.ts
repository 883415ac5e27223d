/** `npm run reset`: deletes the local stack's data (tables, objects, the local API key). */
import { rmSync } from 'node:fs';
import { runningStackPid } from './lock.ts';
import { LOCAL_DATA_DIR } from './paths.ts';

const pid = runningStackPid();
if (pid !== undefined) {
  console.error(`The local stack is running (pid ${pid}); stop it (Ctrl-C) before resetting its data.`);
  process.exit(1);
}
rmSync(LOCAL_DATA_DIR, { recursive: true, force: true });
console.log(`Deleted ${LOCAL_DATA_DIR}. The next npm start begins with empty tables and a new API key.`);
