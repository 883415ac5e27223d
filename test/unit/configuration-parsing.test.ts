import { afterEach, describe, expect, it, vi } from 'vitest';
import { mediaTaskSettings } from '../../shared/config/media-task.ts';
import { positiveNumberSetting } from '../../shared/config/settings.ts';
import { maxCallSeconds } from '../../shared/config/call-length.ts';
import { localStackSettings } from '../../local/local-settings.ts';

afterEach(() => vi.unstubAllEnvs());

describe('a numeric setting: its default when unset, a malformed value named', () => {
  it.each<{ value: string | undefined; expected: number | string }>([
    { value: undefined, expected: 1 },
    { value: '', expected: 1 },
    { value: '60', expected: 60 },
    { value: '0.5', expected: 0.5 },
    { value: '0', expected: "Setting CAMPAIGN_TIME_SCALE must be a number greater than 0, not '0'" },
    { value: 'fast', expected: "Setting CAMPAIGN_TIME_SCALE must be a number greater than 0, not 'fast'" },
    { value: '-3', expected: "Setting CAMPAIGN_TIME_SCALE must be a number greater than 0, not '-3'" },
  ])('CAMPAIGN_TIME_SCALE=$value', ({ value, expected }) => {
    vi.stubEnv('CAMPAIGN_TIME_SCALE', value);
    if (typeof expected === 'number') expect(positiveNumberSetting('CAMPAIGN_TIME_SCALE', 1)).toBe(expected);
    else expect(() => positiveNumberSetting('CAMPAIGN_TIME_SCALE', 1)).toThrow(expected);
  });

  it('the longest call: an hour unless the stack says otherwise, read when asked', () => {
    vi.stubEnv('MAX_CALL_SECONDS', undefined);
    expect(maxCallSeconds()).toBe(3600);
    vi.stubEnv('MAX_CALL_SECONDS', '1800');
    expect(maxCallSeconds()).toBe(1800);
  });
});

describe("the media task's settings", () => {
  const complete = { MEDIA_MAX_CALLS: '100', MEDIA_EARLY_CONNECTIONS: 'on' };
  it.each<{ name: string; env: Record<string, string>; expected: object | string }>([
    {
      name: 'defaults for the drain and the port',
      env: complete,
      expected: { drainSeconds: 110, maxCalls: 100, earlyConnections: true, port: 8080 },
    },
    {
      name: 'every one given',
      env: { ...complete, DRAIN_SECONDS: '0', MEDIA_EARLY_CONNECTIONS: 'off', PORT: '9000' },
      expected: { drainSeconds: 0, maxCalls: 100, earlyConnections: false, port: 9000 },
    },
    {
      name: 'no call limit',
      env: { MEDIA_EARLY_CONNECTIONS: 'on' },
      expected: "MEDIA_MAX_CALLS must be a whole number >= 1, got ''",
    },
    { name: 'a fractional call limit', env: { ...complete, MEDIA_MAX_CALLS: '2.5' }, expected: 'MEDIA_MAX_CALLS' },
    {
      name: 'early connections unset',
      env: { MEDIA_MAX_CALLS: '5' },
      expected: "MEDIA_EARLY_CONNECTIONS must be on or off, got ''",
    },
    { name: 'a negative drain', env: { ...complete, DRAIN_SECONDS: '-1' }, expected: 'DRAIN_SECONDS' },
    {
      name: 'a port out of range',
      env: { ...complete, PORT: '70000' },
      expected: "PORT must be a port number, got '70000'",
    },
  ])('$name', ({ env, expected }) => {
    if (typeof expected === 'string') expect(() => mediaTaskSettings(env)).toThrow(expected);
    else expect(mediaTaskSettings(env)).toEqual(expected);
  });
});

describe("the local stack's knobs", () => {
  it.each<{ name: string; env: Record<string, string>; expected: object | string }>([
    {
      name: 'nothing set: port 3000, INFO, early connections on, the rest the stack defaults',
      env: {},
      expected: {
        port: 3000,
        logLevel: 'INFO',
        authorizerCacheTtlSeconds: undefined,
        maxCallSeconds: undefined,
        simCallSeconds: undefined,
        callsPerSecond: undefined,
        campaignTimeScale: undefined,
        campaignPollSeconds: undefined,
        earlyConnections: true,
      },
    },
    {
      name: 'each given',
      env: {
        PORT: '0',
        LOG_LEVEL: 'SILENT',
        AUTHORIZER_CACHE_TTL_SECONDS: '0',
        MAX_CALL_SECONDS: '600',
        SIM_CALL_SECONDS: '5',
        SIM_CALLS_PER_SECOND: '1',
        CAMPAIGN_TIME_SCALE: '3600',
        CAMPAIGN_POLL_SECONDS: '0.5',
        MEDIA_EARLY_CONNECTIONS: 'off',
      },
      expected: {
        port: 0,
        logLevel: 'SILENT',
        authorizerCacheTtlSeconds: 0,
        maxCallSeconds: 600,
        simCallSeconds: 5,
        callsPerSecond: 1,
        campaignTimeScale: 3600,
        campaignPollSeconds: 0.5,
        earlyConnections: false,
      },
    },
    { name: 'a port that is not one', env: { PORT: 'http' }, expected: "PORT must be a number in range, not 'http'" },
    {
      name: 'an unknown log level',
      env: { LOG_LEVEL: 'loud' },
      expected: 'LOG_LEVEL must be one of DEBUG, INFO, WARN, ERROR, SILENT',
    },
    {
      name: 'early connections neither on nor off',
      env: { MEDIA_EARLY_CONNECTIONS: 'no' },
      expected: 'MEDIA_EARLY_CONNECTIONS must be on or off',
    },
    { name: 'no calls per second', env: { SIM_CALLS_PER_SECOND: '0' }, expected: 'SIM_CALLS_PER_SECOND' },
  ])('$name', ({ env, expected }) => {
    if (typeof expected === 'string') expect(() => localStackSettings(env)).toThrow(expected);
    else expect(localStackSettings(env)).toEqual(expected);
  });
});
