import { RemovalPolicy, SecretValue } from 'aws-cdk-lib';
import { Secret as ContainerSecret } from 'aws-cdk-lib/aws-ecs';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { acknowledge } from '../nag.ts';

/** JSON keys of the voice providers' secret; set them after the first deploy (README "Voice agent"). */
export const VOICE_SECRET_KEYS = { deepgramApiKey: 'deepgramApiKey', llmApiKey: 'llmApiKey', elevenLabsApiKey: 'elevenLabsApiKey' } as const;

export const DEFAULT_LLM_API_URL = 'https://api.openai.com/v1';
export const DEFAULT_LLM_MODEL = 'gpt-4o-mini';

/**
 * The platform's speech and model providers: their keys in one secret (empty until the operator
 * sets them: the media task then refuses to start and the AI authoring endpoints answer 503,
 * each naming what is missing), the model's URL and name from context (`llmApiUrl`, `llmModel`),
 * the text-to-speech provider from context (`ttsProvider`: `elevenlabs` or `openai`).
 */
export class VoiceProviders extends Construct {
  readonly secret: Secret;
  readonly settings: { LLM_API_URL: string; LLM_MODEL: string; TTS_PROVIDER: string };

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.secret = new Secret(this, 'Secret', {
      description: 'Voice agent provider keys: deepgramApiKey, llmApiKey, elevenLabsApiKey (set by the operator)',
      secretObjectValue: Object.fromEntries(Object.values(VOICE_SECRET_KEYS).map((key) => [key, SecretValue.unsafePlainText('')])),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledge(this.secret, "No automatic rotation: the keys are issued by the providers and change on the providers' side.", 'AwsSolutions-SMG4');
    const context = (key: string, fallback: string) => String(this.node.tryGetContext(key) ?? fallback);
    this.settings = { LLM_API_URL: context('llmApiUrl', DEFAULT_LLM_API_URL), LLM_MODEL: context('llmModel', DEFAULT_LLM_MODEL), TTS_PROVIDER: context('ttsProvider', 'elevenlabs') };
  }

  /** A Lambda that calls the platform model: its URL, name and key (a deploy-time dynamic reference). */
  configureModel(fn: LambdaFunction): void {
    fn.addEnvironment('LLM_API_URL', this.settings.LLM_API_URL);
    fn.addEnvironment('LLM_MODEL', this.settings.LLM_MODEL);
    fn.addEnvironment('LLM_API_KEY', this.secret.secretValueFromJson(VOICE_SECRET_KEYS.llmApiKey).unsafeUnwrap());
  }

  /** The media container's provider keys, injected by ECS at task start. */
  containerSecrets(): Record<string, ContainerSecret> {
    return {
      DEEPGRAM_API_KEY: ContainerSecret.fromSecretsManager(this.secret, VOICE_SECRET_KEYS.deepgramApiKey),
      LLM_API_KEY: ContainerSecret.fromSecretsManager(this.secret, VOICE_SECRET_KEYS.llmApiKey),
      ELEVENLABS_API_KEY: ContainerSecret.fromSecretsManager(this.secret, VOICE_SECRET_KEYS.elevenLabsApiKey),
    };
  }
}
