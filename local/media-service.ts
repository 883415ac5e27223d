import { Logger } from '@aws-lambda-powertools/logger';
import { providersFromEnvironment } from '../media/src/agent/providers.ts';
import { MEDIA_STREAM_PATH, startMediaService } from '../media/src/service.ts';
import { startFakeVoiceProviders, type FakeVoiceProviders } from './fakes/voice-providers.ts';

/**
 * The media service in this process: the same code as the Fargate task, its providers configured
 * the same way (providersFromEnvironment) but pointing at the local fakes of Deepgram, the
 * OpenAI-compatible API and ElevenLabs; agents' HTTP tools reach the local tool endpoint.
 */
export async function startLocalMediaService(): Promise<{
  streamUrl: string;
  fakes: FakeVoiceProviders;
  platformModelEnv: Record<string, string>;
  stop: () => Promise<void>;
}> {
  const logger = new Logger({ serviceName: 'media' });
  const fakes = await startFakeVoiceProviders();
  const media = await startMediaService({
    port: 0,
    host: '127.0.0.1',
    calls: { providers: providersFromEnvironment(fakes.env), settings: fakes.env, toolFetch: fakes.tools.fetch },
    log: (level, message, details) => logger[level](message, { ...details }),
  });
  return {
    streamUrl: `ws://127.0.0.1:${media.port}${MEDIA_STREAM_PATH}`,
    fakes,
    // The AI authoring functions use the same fake as the platform model (LLM_* as the CDK stack sets them).
    platformModelEnv: {
      LLM_API_URL: fakes.env.LLM_API_URL!,
      LLM_API_KEY: fakes.env.LLM_API_KEY!,
      LLM_MODEL: fakes.env.LLM_MODEL!,
    },
    stop: async () => {
      await media.close();
      await fakes.stop();
    },
  };
}
