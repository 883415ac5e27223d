import { afterEach, describe, expect, it } from 'vitest';
import { describeLocalVoiceProviders, localVoiceProviders } from '../../shared/config/local-voice-providers.ts';
import { FAKE_MODEL, startVoiceProviders, voiceProviderSettings } from '../../local/fakes/voice-providers.ts';
import { startLocalMediaService } from '../../local/media-service.ts';
import { useLocalSecretsManager } from '../support/secrets.ts';
import { VOICE_SETTINGS } from '../../shared/config/voice-settings.ts';

/**
 * `npm start` with provider keys: each key makes its provider the real one (its SDK at the
 * provider's own endpoint, no URL setting, as on AWS), every other provider stays its local fake.
 * No test here connects to anything but loopback: a real provider is only configured, never called.
 */
const FAKES = {
  deepgram: { url: 'http://127.0.0.1:1001', apiKey: 'fake-deepgram' },
  model: { url: 'http://127.0.0.1:1002/v1', apiKey: 'fake-model' },
  elevenlabs: { url: 'http://127.0.0.1:1003', apiKey: 'fake-elevenlabs' },
};
const DEFAULT_VOICE = Object.fromEntries(
  Object.entries(VOICE_SETTINGS).map(([name, { default: value }]) => [name, value]),
);

describe('which provider npm start uses, by the keys in its environment', () => {
  const rows: {
    name: string;
    env: Record<string, string>;
    urls: Record<string, string>;
    model: string;
    keys: Record<string, string>;
  }[] = [
    {
      name: 'no keys: every provider is its fake',
      env: {},
      urls: {
        DEEPGRAM_API_URL: FAKES.deepgram.url,
        LLM_API_URL: FAKES.model.url,
        ELEVENLABS_API_URL: FAKES.elevenlabs.url,
      },
      model: FAKE_MODEL,
      keys: { deepgramApiKey: 'fake-deepgram', llmApiKey: 'fake-model', elevenLabsApiKey: 'fake-elevenlabs' },
    },
    {
      name: 'a Deepgram key: the real Deepgram, the fakes for the others',
      env: { DEEPGRAM_API_KEY: 'dg-key' },
      urls: { LLM_API_URL: FAKES.model.url, ELEVENLABS_API_URL: FAKES.elevenlabs.url },
      model: FAKE_MODEL,
      keys: { deepgramApiKey: 'dg-key', llmApiKey: 'fake-model', elevenLabsApiKey: 'fake-elevenlabs' },
    },
    {
      name: "a model key: OpenAI's API and model, the fakes for the others",
      env: { LLM_API_KEY: 'sk-key' },
      urls: {
        DEEPGRAM_API_URL: FAKES.deepgram.url,
        LLM_API_URL: 'https://api.openai.com/v1',
        ELEVENLABS_API_URL: FAKES.elevenlabs.url,
      },
      model: 'gpt-4o-mini',
      keys: { deepgramApiKey: 'fake-deepgram', llmApiKey: 'sk-key', elevenLabsApiKey: 'fake-elevenlabs' },
    },
    {
      name: 'a model key with another OpenAI-compatible API and model',
      env: {
        LLM_API_KEY: 'gsk-key',
        LLM_API_URL: 'https://api.groq.com/openai/v1',
        LLM_MODEL: 'llama-3.3-70b-versatile',
      },
      urls: {
        DEEPGRAM_API_URL: FAKES.deepgram.url,
        LLM_API_URL: 'https://api.groq.com/openai/v1',
        ELEVENLABS_API_URL: FAKES.elevenlabs.url,
      },
      model: 'llama-3.3-70b-versatile',
      keys: { deepgramApiKey: 'fake-deepgram', llmApiKey: 'gsk-key', elevenLabsApiKey: 'fake-elevenlabs' },
    },
    {
      name: 'an ElevenLabs key: the real ElevenLabs, the fakes for the others',
      env: { ELEVENLABS_API_KEY: 'el-key' },
      urls: { DEEPGRAM_API_URL: FAKES.deepgram.url, LLM_API_URL: FAKES.model.url },
      model: FAKE_MODEL,
      keys: { deepgramApiKey: 'fake-deepgram', llmApiKey: 'fake-model', elevenLabsApiKey: 'el-key' },
    },
    {
      name: 'every key: no fake at all',
      env: { DEEPGRAM_API_KEY: 'dg-key', LLM_API_KEY: 'sk-key', ELEVENLABS_API_KEY: 'el-key' },
      urls: { LLM_API_URL: 'https://api.openai.com/v1' },
      model: 'gpt-4o-mini',
      keys: { deepgramApiKey: 'dg-key', llmApiKey: 'sk-key', elevenLabsApiKey: 'el-key' },
    },
    {
      name: 'empty or blank keys count as unset',
      env: { DEEPGRAM_API_KEY: '', LLM_API_KEY: '  ', ELEVENLABS_API_KEY: '' },
      urls: {
        DEEPGRAM_API_URL: FAKES.deepgram.url,
        LLM_API_URL: FAKES.model.url,
        ELEVENLABS_API_URL: FAKES.elevenlabs.url,
      },
      model: FAKE_MODEL,
      keys: { deepgramApiKey: 'fake-deepgram', llmApiKey: 'fake-model', elevenLabsApiKey: 'fake-elevenlabs' },
    },
  ];

  it.each(rows)('$name', ({ env, urls, model, keys }) => {
    const { settings, keys: secret } = voiceProviderSettings(localVoiceProviders(env), FAKES);
    const urlSettings = Object.fromEntries(Object.entries(settings).filter(([name]) => name.endsWith('_API_URL')));
    expect(urlSettings).toEqual(urls);
    expect(settings.LLM_MODEL).toBe(model);
    expect(secret).toEqual(keys);
    // The media task's voice settings are all there, as the stack sets them on AWS.
    expect(settings).toMatchObject(DEFAULT_VOICE);
  });

  it('takes the voice settings from the environment, by the names the stack sets on the media task', () => {
    const voice = {
      DEEPGRAM_MODEL: 'nova-2',
      DEEPGRAM_FLUX_MODEL: 'flux-general-multi',
      TTS_PROVIDER: 'openai',
      TTS_VOICE: 'verse',
      ELEVENLABS_MODEL: 'eleven_turbo_v2_5',
      OPENAI_TTS_MODEL: 'tts-1',
      REALTIME_MODEL: 'gpt-realtime-mini',
    };
    expect(localVoiceProviders(voice).voice).toEqual(voice);
    expect(voiceProviderSettings(localVoiceProviders(voice), FAKES).settings).toMatchObject(voice);
  });

  it.each([
    [{ LLM_API_URL: 'https://api.groq.com/openai/v1' }, /^LLM_API_URL is set but LLM_API_KEY is not/],
    [{ LLM_MODEL: 'gpt-4o' }, /^LLM_MODEL is set but LLM_API_KEY is not/],
    [{ LLM_API_KEY: 'k', LLM_API_URL: 'api.openai.com/v1' }, /^LLM_API_URL must be the http\(s\) base URL/],
    [{ TTS_PROVIDER: 'polly' }, /^TTS_PROVIDER must be one of elevenlabs, openai, not 'polly'/],
  ])('refuses a setting it would ignore or cannot use: %j', (env, message) => {
    expect(() => localVoiceProviders(env)).toThrow(message);
  });

  it('fails rather than leave a provider with neither a key nor a fake', () => {
    const { model: _model, ...noModelFake } = FAKES;
    expect(() => voiceProviderSettings(localVoiceProviders({}), noModelFake)).toThrow(
      'The model provider has neither a key nor a local fake',
    );
  });
});

describe('what npm start prints about its providers', () => {
  it.each([
    {
      env: {},
      lines: [
        'Speech to text: local fake of Deepgram (set DEEPGRAM_API_KEY for the real one)',
        'Language model: local fake (set LLM_API_KEY for the real one)',
        'Text to speech: local fake of ElevenLabs (set ELEVENLABS_API_KEY for the real one)',
        'Speech to speech (agents of engine realtime): local fake of the OpenAI Realtime API (set REALTIME_API_KEY for the real one)',
      ],
    },
    {
      env: { DEEPGRAM_API_KEY: 'dg', LLM_API_KEY: 'sk', ELEVENLABS_API_KEY: 'el', REALTIME_API_KEY: 'rt' },
      lines: [
        'Speech to text: Deepgram, model nova-3',
        'Language model: gpt-4o-mini at api.openai.com',
        'Text to speech: ElevenLabs, model eleven_flash_v2_5, voice JBFqnCBsd6RMkjVDRZzb',
        'Speech to speech (agents of engine realtime): OpenAI Realtime, model gpt-realtime',
      ],
    },
    {
      env: { LLM_API_KEY: 'sk', TTS_PROVIDER: 'openai' },
      lines: [
        'Speech to text: local fake of Deepgram (set DEEPGRAM_API_KEY for the real one)',
        'Language model: gpt-4o-mini at api.openai.com',
        'Text to speech: OpenAI speech at api.openai.com, model gpt-4o-mini-tts, voice alloy',
        'Speech to speech (agents of engine realtime): local fake of the OpenAI Realtime API (set REALTIME_API_KEY for the real one)',
      ],
    },
    {
      env: { TTS_PROVIDER: 'openai', OPENAI_API_KEY: 'sk' },
      lines: [
        'Speech to text: local fake of Deepgram (set DEEPGRAM_API_KEY for the real one)',
        'Language model: local fake (set LLM_API_KEY for the real one)',
        'Text to speech: local fake of OpenAI speech (set LLM_API_KEY for the real one)',
        'Speech to speech (agents of engine realtime): local fake of the OpenAI Realtime API (set REALTIME_API_KEY for the real one)',
        "(OPENAI_API_KEY is not read: the platform model's key is LLM_API_KEY, e.g. LLM_API_KEY=$OPENAI_API_KEY npm start)",
      ],
    },
  ])('$env', ({ env, lines }) => {
    expect(describeLocalVoiceProviders(localVoiceProviders(env), env)).toEqual(lines);
  });
});

describe('the fakes started for the local media service', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it('starts no fake for a provider whose key is set, and points only the others at their fakes', async () => {
    const providers = await startVoiceProviders(localVoiceProviders({ DEEPGRAM_API_KEY: 'dg-key' }));
    stop = providers.stop;
    expect(providers.fakes.deepgram).toBeUndefined();
    expect(providers.settings).not.toHaveProperty('DEEPGRAM_API_URL');
    expect(providers.keys.deepgramApiKey).toBe('dg-key');
    expect(await providers.readKeys(['deepgramApiKey'])).toEqual({ deepgramApiKey: 'dg-key' });
    expect(providers.settings.LLM_API_URL).toBe(providers.fakes.model?.url);
    expect(providers.settings.ELEVENLABS_API_URL).toBe(providers.fakes.elevenlabs?.url);
    expect(providers.settings.LLM_API_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it('with every key, the media service starts with no fake: only the local tool endpoint', async () => {
    const secretsManager = await useLocalSecretsManager({ 'media-streams': 'unit-test-stream-key' });
    stop = () => secretsManager.stop();
    process.env.MEDIA_STREAM_SECRET_ARN = secretsManager.arns['media-streams'];
    const media = await startLocalMediaService(
      localVoiceProviders({
        DEEPGRAM_API_KEY: 'dg-key',
        LLM_API_KEY: 'sk-key',
        ELEVENLABS_API_KEY: 'el-key',
        REALTIME_API_KEY: 'rt-key',
      }),
    );
    stop = async () => {
      await media.stop();
      await secretsManager.stop();
    };
    expect(media.providers.fakes).toEqual({
      deepgram: undefined,
      model: undefined,
      elevenlabs: undefined,
      realtime: undefined,
    });
    expect(media.voiceKeys).toEqual({
      deepgramApiKey: 'dg-key',
      llmApiKey: 'sk-key',
      elevenLabsApiKey: 'el-key',
      realtimeApiKey: 'rt-key',
    });
    expect(media.platformModelEnv).toEqual({ LLM_API_URL: 'https://api.openai.com/v1', LLM_MODEL: 'gpt-4o-mini' });
    // No setting points anywhere on this machine but the tool endpoint's, which is not a provider's.
    expect(Object.values(media.providers.settings).filter((value) => value.includes('127.0.0.1'))).toEqual([]);
    expect(media.streamUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/media$/);
  });
});
