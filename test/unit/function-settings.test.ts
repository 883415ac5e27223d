import { afterAll, describe, expect, it } from 'vitest';
import { AUTHORIZER, FUNCTION_GROUPS } from '../../shared/api/function-groups.ts';
import { allFunctions, SETTINGS, settingsFor } from '../../shared/config/settings.ts';
import { configureLocalFunctions, localFunctionEnvironment, runAsFunction } from '../../local/lambda-runtime.ts';

const realEnv = process.env;
afterAll(() => {
  process.env = realEnv;
});

/** A value for every setting, as a local stack would give. */
const values = Object.fromEntries(Object.keys(SETTINGS).map((name) => [name, `value-of-${name}`]));

describe('settings per function', () => {
  it('the local stack gives each function the settings the CDK stack gives it, plus only the local-only ones', () => {
    for (const [name, fn] of allFunctions(AUTHORIZER)) {
      const local = Object.keys(localFunctionEnvironment(name, fn, values)).sort();
      expect(local, name).toEqual(settingsFor(name, fn, { local: true }));
      const localOnly = local.filter((setting) => !settingsFor(name, fn, { local: false }).includes(setting));
      for (const setting of localOnly)
        expect(SETTINGS[setting as keyof typeof SETTINGS], `${name} ${setting}`).toMatchObject({ localOnly: true });
    }
  });

  it('derives settings from access flags: table, bucket, secrets by the flag that uses them', () => {
    expect(settingsFor('downloads', FUNCTION_GROUPS.downloads, { local: false })).toEqual(
      [
        'BUCKET_NAME',
        'DOWNLOAD_LINK_SECRET_ARN',
        'POWERTOOLS_LOG_LEVEL',
        'POWERTOOLS_METRICS_NAMESPACE',
        'POWERTOOLS_SERVICE_NAME',
      ].sort(),
    );
    expect(settingsFor('fallback', FUNCTION_GROUPS.fallback, { local: false })).toEqual([
      'POWERTOOLS_LOG_LEVEL',
      'POWERTOOLS_METRICS_NAMESPACE',
      'POWERTOOLS_SERVICE_NAME',
    ]);
    for (const [name, fn] of allFunctions(AUTHORIZER)) {
      const settings = settingsFor(name, fn, { local: false });
      expect(settings.includes('TELEPHONY_SECRET_ARN'), name).toBe(Boolean(fn.access.telephony));
      // Only the functions that connect calls (dial or answer them) or browser sessions to the media service sign their credentials
      // (the agent test runner opens the chat sessions its cases talk in).
      expect(settings.includes('MEDIA_STREAM_SECRET_ARN'), name).toBe(
        [
          'callLifecycle',
          'telephonyCallbacks',
          'campaignEngine',
          'campaignOutcomes',
          'conversations',
          'agentTestRunner',
        ].includes(name),
      );
      expect(settings.includes('SHEETS_SECRET_ARN'), name).toBe(Boolean(fn.access.encryption));
      expect(settings.includes('TABLE_NAME'), name).toBe(Boolean(fn.access.table));
    }
  });

  it('a local stack missing a value fails when it starts, naming the setting and the function', () => {
    const { MEDIA_STREAM_URL: _missing, ...incomplete } = values;
    expect(() => configureLocalFunctions(incomplete)).toThrow(
      /MEDIA_STREAM_URL, which function (calls|telephonyCallbacks|callLifecycle|numbers) reads/,
    );
  });

  it('inside an invocation a function sees its own settings only; reading another is an error naming it', () => {
    configureLocalFunctions({ ...values, PATH_LIKE: 'x' });
    process.env.SOME_TOOL_VARIABLE = 'passes through';
    runAsFunction('downloads', FUNCTION_GROUPS.downloads, () => {
      expect(process.env.BUCKET_NAME).toBe('value-of-BUCKET_NAME');
      expect(process.env.POWERTOOLS_SERVICE_NAME).toBe('voice-agent-api-downloads');
      expect(() => process.env.TABLE_NAME).toThrow(
        'Function downloads reads TABLE_NAME, which the stack does not give it',
      );
      expect('TABLE_NAME' in process.env).toBe(false);
      expect(Object.keys(process.env)).not.toContain('TELEPHONY_API_KEY');
      expect(process.env.SOME_TOOL_VARIABLE).toBe('passes through');
    });
    // Asynchronous work started by an invocation keeps its environment.
    return runAsFunction('calls', FUNCTION_GROUPS.calls, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      expect(process.env.DEFAULT_CALLER_ID).toBe('value-of-DEFAULT_CALLER_ID');
      expect(() => process.env.BUCKET_NAME).toThrow(/Function calls reads BUCKET_NAME/);
    });
  });
});
