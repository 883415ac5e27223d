import { RemovalPolicy, SecretValue } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { acknowledge } from '../nag.ts';
import { TTS_PROVIDERS, VOICE_SETTINGS, type VoiceSettingName } from '../../shared/config/voice-settings.ts';

/** JSON keys of the voice providers' secret; set them after the first deploy (README "Voice agent"). */
export const VOICE_SECRET_KEYS = {
  deepgramApiKey: 'deepgramApiKey',
  llmApiKey: 'llmApiKey',
  elevenLabsApiKey: 'elevenLabsApiKey',
  realtimeApiKey: 'realtimeApiKey',
} as const;

/**
 * The platform's speech and model providers: their keys in one secret, empty until the operator
 * sets them (a deploy needs none: the media task starts and is healthy without them, a call that
 * needs a missing key fails naming it, and the AI authoring endpoints answer 503 naming it), and
 * the voice settings from context (shared/config/voice-settings.ts, plus the model's `llmApiUrl`
 * and `llmModel`). Every reader, the Lambda functions and the media task, reads the keys at run
 * time through VOICE_PROVIDERS_SECRET_ARN (cached 5 minutes): filling or rotating a key needs no
 * deploy and no new task.
 */
export class VoiceProviders extends Construct {
  readonly secret: Secret;
  /** The media task's voice settings. */
  readonly settings: Record<'LLM_API_URL' | 'LLM_MODEL' | VoiceSettingName, string>;

  constructor(scope: Construct, id: string, model: { llmApiUrl: string; llmModel: string }) {
    super(scope, id);
    this.secret = new Secret(this, 'Secret', {
      description:
        'Voice agent provider keys: deepgramApiKey, llmApiKey, elevenLabsApiKey, realtimeApiKey (set by the operator)',
      secretObjectValue: Object.fromEntries(
        Object.values(VOICE_SECRET_KEYS).map((key) => [key, SecretValue.unsafePlainText('')]),
      ),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledge(
      this.secret,
      "No automatic rotation: the keys are issued by the providers and change on the providers' side.",
      'AwsSolutions-SMG4',
    );
    const voice = Object.fromEntries(
      Object.entries(VOICE_SETTINGS).map(([name, setting]) => [
        name,
        String(this.node.tryGetContext(setting.context) ?? setting.default),
      ]),
    ) as Record<VoiceSettingName, string>;
    if (!TTS_PROVIDERS.includes(voice.TTS_PROVIDER as (typeof TTS_PROVIDERS)[number]))
      throw new Error(`Context ttsProvider must be one of ${TTS_PROVIDERS.join(', ')}, got ${voice.TTS_PROVIDER}`);
    this.settings = { LLM_API_URL: model.llmApiUrl, LLM_MODEL: model.llmModel, ...voice };
  }
}
