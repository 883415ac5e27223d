import { Logger } from '@aws-lambda-powertools/logger';
import { platformProviders, type VoiceProviderKey } from '../media/src/agent/providers.ts';
import { MEDIA_STREAM_PATH, startMediaService } from '../media/src/service.ts';
import { startFakeVoiceProviders, type FakeVoiceProviders } from './fakes/voice-providers.ts';

/**
 * The media service in this process: the same code as the Fargate task, its providers configured
 * the same way (platformProviders: settings, and keys read from the VoiceProviders secret in the
 * local Secrets Manager when a call needs them) but pointing at the local fakes of Deepgram, the
 * OpenAI-compatible API and ElevenLabs; agents' HTTP tools reach the local tool endpoint.
 */
export async function startLocalMediaService(): Promise<{
  streamUrl: string;
  fakes: FakeVoiceProviders;
  /** What the local stack puts in the VoiceProviders secret, as the operator does on AWS. */
  voiceKeys: Record<VoiceProviderKey, string>;
  /** The platform model's settings (LLM_* as the CDK stack sets them), shared with the AI authoring functions. */
  platformModelEnv: { LLM_API_URL: string; LLM_MODEL: string };
  stop: () => Promise<void>;
}> {
  const logger = new Logger({ serviceName: 'media' });
  const fakes = await startFakeVoiceProviders();
  const media = await startMediaService({
    port: 0,
    host: '127.0.0.1',
    calls: { providers: platformProviders(fakes.settings), settings: fakes.settings, toolFetch: fakes.tools.fetch },
    log: (level, message, details) => logger[level](message, { ...details }),
    // Peer-to-peer sessions on loopback only: candidates offered and tried are 127.0.0.1.
    webrtc: { hostAddresses: ['127.0.0.1'], remoteAddresses: ['127.0.0.1'] },
  });
  return {
    streamUrl: `ws://127.0.0.1:${media.port}${MEDIA_STREAM_PATH}`,
    fakes,
    voiceKeys: fakes.keys,
    platformModelEnv: { LLM_API_URL: fakes.settings.LLM_API_URL!, LLM_MODEL: fakes.settings.LLM_MODEL! },
    stop: async () => {
      await media.close();
      await fakes.stop();
    },
  };
}
