import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import SlowestFirst from './test/support/slowest-first.ts';

/**
 * Unit files that run in one module graph per worker (`isolate: false`), each importing the modules
 * the others imported already rather than all of them again: those that touch nothing whose state a
 * file could leave behind for the next (mocks and spies, timers, the environment, globals, sockets,
 * the test support, the media and local code). 53 files, 28 → 15 CPU s (docs/testing.md). A file
 * that starts using any of these runs isolated again by itself.
 */
const LEAVES_STATE =
  /\bvi\.|process\.env|globalThis|media\/src|local\/|support\/|setTimeout|setInterval|node:http|node:net|fetch\(/;
const root = fileURLToPath(new URL('.', import.meta.url));
const sharingFiles = globSync('test/unit/**/*.test.ts', { cwd: root }).filter(
  (file) => !LEAVES_STATE.test(readFileSync(join(root, file), 'utf8')),
);

/**
 * Four projects: `unit` and `unit-shared` (pure functions, no I/O; the second the files above),
 * `integration` (HTTP against the local stack that
 * test/support/global-setup.ts starts, or against API_BASE_URL for LocalStack), `infra` (CDK
 * template assertions and cdk-nag).
 *
 * Four workers on CI's two cores: integration files mostly wait on the local stack (calls in real
 * time, timers), so running four at once takes the suite from about 8 to about 3 minutes. Polls
 * wait up to 15 s, as a loaded machine needs more than the default second.
 */
export default defineConfig({
  test: {
    maxWorkers: 4,
    // The slowest files first, by test/file-durations.json (a clean clone has no cached durations).
    sequence: { sequencer: SlowestFirst },
    projects: [
      // 30 s, not the default 5: a unit file's first test pays its dynamic imports, which a loaded machine stretches.
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: sharingFiles,
          testTimeout: 30_000,
        },
      },
      { test: { name: 'unit-shared', include: sharingFiles, isolate: false, testTimeout: 30_000 } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          expect: { poll: { timeout: 15_000 } },
          testTimeout: 90_000,
          hookTimeout: 60_000,
        },
      },
      { test: { name: 'infra', include: ['test/infra/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 300_000 } },
    ],
  },
});
