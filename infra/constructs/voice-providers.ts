import { RemovalPolicy, SecretValue } from 'aws-cdk-lib';
import { Secret as ContainerSecret } from 'aws-cdk-lib/aws-ecs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { acknowledge } from '../nag.ts';

/** JSON keys of the voice providers' secret; set them after the first deploy (README "Voice agent"). */
export const VOICE_SECRET_KEYS = {
  deepgramApiKey: 'deepgramApiKey',
  llmApiKey: 'llmApiKey',
  elevenLabsApiKey: 'elevenLabsApiKey',
} as const;

/**
 * The platform's speech and model providers: their keys in one secret (empty until the operator
 * sets them: the media task then refuses to start and the AI authoring endpoints answer 503,
 * each naming what is missing), the model's URL and name from the deployment settings (context
 * `llmApiUrl`, `llmModel`), the text-to-speech provider from context (`ttsProvider`: `elevenlabs` or `openai`).
 * Lambda functions read the key at run time (VOICE_PROVIDERS_SECRET_ARN); the media task gets the keys
 * as container secrets.
 */
export class VoiceProviders extends Construct {
  readonly secret: Secret;
  readonly settings: { LLM_API_URL: string; LLM_MODEL: string; TTS_PROVIDER: string };

  constructor(scope: Construct, id: string, model: { llmApiUrl: string; llmModel: string }) {
    super(scope, id);
    this.secret = new Secret(this, 'Secret', {
      description: 'Voice agent provider keys: deepgramApiKey, llmApiKey, elevenLabsApiKey (set by the operator)',
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
    const context = (key: string, fallback: string) => String(this.node.tryGetContext(key) ?? fallback);
    this.settings = {
      LLM_API_URL: model.llmApiUrl,
      LLM_MODEL: model.llmModel,
      TTS_PROVIDER: context('ttsProvider', 'elevenlabs'),
    };
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
