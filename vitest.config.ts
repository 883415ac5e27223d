import { defineConfig } from 'vitest/config';

/**
 * Three projects: `unit` (pure functions, no I/O), `integration` (HTTP against the local stack that
 * test/support/global-setup.ts starts, or against API_BASE_URL for LocalStack), `infra` (CDK
 * template assertions and cdk-nag).
 */
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      { test: { name: 'infra', include: ['test/infra/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 300_000 } },
    ],
  },
});
