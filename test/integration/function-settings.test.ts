import { describe, expect, inject, it } from 'vitest';
import { AUTHORIZER } from '../../shared/api/function-groups.ts';
import { allFunctions, SETTINGS, settingsFor } from '../../shared/config/settings.ts';
import { localFunctionEnvironment } from '../../local/lambda-runtime.ts';
import { needsLocalStack } from '../support/api.ts';

describe.skipIf(needsLocalStack)('the running local stack', () => {
  it('gives each function exactly its settings from shared/config/settings.ts, with a value for each', () => {
    const stackEnv = inject('stackEnv');
    for (const [name, fn] of allFunctions(AUTHORIZER)) {
      const env = localFunctionEnvironment(name, fn, stackEnv);
      expect(Object.keys(env).sort(), name).toEqual(settingsFor(name, fn, { local: true }));
      // What AWS gives too, the local stack gives with the same names; the rest is local-only.
      const awsOnly = settingsFor(name, fn, { local: false }).filter((setting) => !(setting in env));
      expect(awsOnly, name).toEqual([]);
    }
    // Secrets travel as ARNs read from the local Secrets Manager stand-in, never as values.
    expect(stackEnv.DOWNLOAD_LINK_SECRET_ARN).toMatch(/^arn:aws:secretsmanager:/);
    expect(stackEnv.AWS_ENDPOINT_URL_SECRETS_MANAGER).toMatch(/^http:\/\/127\.0\.0\.1:/);
    expect(Object.keys(SETTINGS)).toContain('DEFAULT_CALLER_ID');
  });
});
