/**
 * The media task's voice settings: which speech and voice models the platform's providers use.
 * Each is a CDK context key with a default; the stack sets every one on the task (infra/constructs/
 * media.ts, tested in test/infra/media.test.ts), the media service reads them here and nowhere
 * else (media/src/agent/providers.ts). The providers' keys are not settings: they are read at run
 * time from the VoiceProviders secret (VOICE_PROVIDERS_SECRET_ARN), so a deploy needs none of them.
 */
export const VOICE_SETTINGS = {
  DEEPGRAM_MODEL: { context: 'deepgramModel', default: 'nova-3', description: 'Deepgram live model' },
  DEEPGRAM_FLUX_MODEL: {
    context: 'deepgramFluxModel',
    default: 'flux-general-en',
    description:
      "Deepgram Flux model of the agents whose turn ends by Flux (`turn_taking.end_of_turn: flux`): `flux-general-en`, or `flux-general-multi` (the call's language as a hint)",
  },
  TTS_PROVIDER: {
    context: 'ttsProvider',
    default: 'elevenlabs',
    description: 'Text to speech: `elevenlabs` (ulaw_8000, no transcoding) or `openai` (the llmApiUrl account)',
  },
  TTS_VOICE: {
    context: 'ttsVoice',
    default: '',
    description:
      "Default voice id (an agent's `workflow_configurations.voice` overrides it); empty: the provider's default",
  },
  ELEVENLABS_MODEL: { context: 'elevenLabsModel', default: 'eleven_flash_v2_5', description: 'ElevenLabs model' },
  OPENAI_TTS_MODEL: { context: 'openAiTtsModel', default: 'gpt-4o-mini-tts', description: 'OpenAI speech model' },
  REALTIME_MODEL: {
    context: 'realtimeModel',
    default: 'gpt-realtime',
    description: "OpenAI Realtime model of the agents whose `engine` is `realtime` (the secret's `realtimeApiKey`)",
  },
} as const;

/** OpenAI's API, where the `realtime` engine's sessions open (wss://…/v1/realtime). */
export const DEFAULT_REALTIME_API_URL = 'https://api.openai.com/v1';

export type VoiceSettingName = keyof typeof VOICE_SETTINGS;

/** The platform model when its context values are not set: OpenAI's API and model (context llmApiUrl, llmModel). */
export const DEFAULT_LLM_API_URL = 'https://api.openai.com/v1';
export const DEFAULT_LLM_MODEL = 'gpt-4o-mini';

/** The text-to-speech providers the media service speaks. */
export const TTS_PROVIDERS = ['elevenlabs', 'openai'] as const;

/** Voices when TTS_VOICE is empty: ElevenLabs' "George", OpenAI's `alloy`. */
export const DEFAULT_VOICES = { elevenlabs: 'JBFqnCBsd6RMkjVDRZzb', openai: 'alloy' } as const;

/** A voice setting from `env`, its default when unset or empty. */
export function voiceSetting(env: NodeJS.ProcessEnv, name: VoiceSettingName): string {
  return env[name] || VOICE_SETTINGS[name].default;
}
