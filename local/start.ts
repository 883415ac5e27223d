/**
 * `npm start`: the whole application on this machine, no AWS account, Docker or network needed.
 * Data persists in `.local-data/` (git-ignored) until `npm run reset`.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { ensureLocalCredentials } from './credentials.ts';
import { acquireStackLock, releaseStackLock } from './lock.ts';
import { LOCAL_DATA_DIR, LOCAL_STACK_ENV_FILE } from './paths.ts';
import { keepLocalDataPrivate } from './private-files.ts';
import { describeLocalVoiceProviders, localVoiceProviders } from '../shared/config/local-voice-providers.ts';
import { localStackSettings } from './local-settings.ts';
import { startLocalStack } from './stack.ts';

let settings: ReturnType<typeof localStackSettings>;
try {
  settings = localStackSettings(process.env);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}

// Real speech and model providers for the keys in the environment, the local fakes for the others.
let voiceProviders: ReturnType<typeof localVoiceProviders>;
try {
  voiceProviders = localVoiceProviders(process.env);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}

keepLocalDataPrivate(LOCAL_DATA_DIR);
try {
  acquireStackLock();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

let stack: Awaited<ReturnType<typeof startLocalStack>> | undefined;
let stopping = false;

async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the local stack...`);
  await stack?.stop();
  rmSync(LOCAL_STACK_ENV_FILE, { force: true });
  releaseStackLock();
  console.log('Stopped.');
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

try {
  stack = await startLocalStack({
    ...settings,
    dataDir: LOCAL_DATA_DIR,
    voiceProviders,
  });
  // The operator CLI (`npm run admin`) finds the running stack through this file.
  writeFileSync(LOCAL_STACK_ENV_FILE, JSON.stringify(stack.env, null, 2), { mode: 0o600 });
  const credentials = await ensureLocalCredentials();
  console.log(`Base URL: ${stack.baseUrl}`);
  console.log(`API key: ${credentials.apiKey}`);
  console.log(`Console: ${stack.consoleUrl}`);
  console.log(`Docs: ${stack.baseUrl}/public-docs`);
  for (const line of describeLocalVoiceProviders(voiceProviders, process.env)) console.log(line);
  console.log(`Data: ${LOCAL_DATA_DIR} (npm run reset clears it). Ctrl-C stops.`);
} catch (error) {
  console.error('The local stack failed to start:', error);
  await stack?.stop();
  releaseStackLock();
  process.exit(1);
}
