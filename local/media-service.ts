import { Logger } from '@aws-lambda-powertools/logger';
import { loadElevenLabs, platformProviders, type VoiceProviderKey } from '../media/src/agent/providers.ts';
import { MEDIA_STREAM_PATH, startMediaService } from '../media/src/service.ts';
import type { CallSessionConfig } from '../media/src/call-sessions.ts';
import type { LogFn } from '../media/src/call/call-types.ts';
import type { LocalVoiceProviders } from '../shared/config/local-voice-providers.ts';
import { mediaTelemetrySettings } from '../shared/config/media-telemetry.ts';
import { ACTIVE_CALLS_METRIC } from '../media/src/deployment.ts';
import { startMediaTelemetry } from '../media/src/telemetry/media-telemetry.ts';
import { startVoiceProviders, type VoiceProviders } from './fakes/voice-providers.ts';

/**
 * The media service in this process: the same code as the Fargate task, its providers configured
 * the same way (platformProviders: settings, and keys read from the VoiceProviders secret in the
 * local Secrets Manager when a call needs them). Each provider of `providers` with a key is the
 * real one at its own endpoint; the others are the local fakes of Deepgram, the OpenAI-compatible
 * API and ElevenLabs. Agents' HTTP tools reach the local tool endpoint.
 */
export async function startLocalMediaService(
  providers: LocalVoiceProviders,
  options: { earlyConnections: boolean; timing?: CallSessionConfig['timing'] } = { earlyConnections: true },
): Promise<{
  streamUrl: string;
  providers: VoiceProviders;
  /** What the local stack puts in the VoiceProviders secret, as the operator does on AWS. */
  voiceKeys: Record<VoiceProviderKey, string>;
  /** The platform model's settings (LLM_* as the CDK stack sets them), shared with the AI authoring functions. */
  platformModelEnv: { LLM_API_URL: string; LLM_MODEL: string };
  /** The providers' settings (the fakes' URLs, the voice settings): a voice test's simulated caller speaks and hears with them too. */
  voiceSettings: Record<string, string>;
  stop: () => Promise<void>;
}> {
  const logger = new Logger({ serviceName: 'media' });
  const log: LogFn = (level, message, details) => logger[level](message, { ...details });
  // The stack's metrics (off while POWERTOOLS_METRICS_DISABLED, as the local stack sets it), and
  // no spans: there is no collector here.
  const telemetry = startMediaTelemetry(
    mediaTelemetrySettings({
      POWERTOOLS_METRICS_NAMESPACE: ACTIVE_CALLS_METRIC.namespace,
      OTEL_TRACES_EXPORTER: 'none',
    }),
    log,
  );
  // As the task does (media/src/main.ts): the ElevenLabs SDK loaded before the first call.
  await loadElevenLabs();
  const voice = await startVoiceProviders(providers);
  const media = await startMediaService({
    port: 0,
    host: '127.0.0.1',
    calls: {
      providers: platformProviders(voice.settings),
      settings: voice.settings,
      toolFetch: voice.tools.fetch,
      timing: options.timing,
    },
    log,
    telemetry: telemetry.sink,
    // Dialed calls are made ready while they ring, as on AWS; the local stack's
    // MEDIA_EARLY_CONNECTIONS=off turns it off, as the context mediaEarlyConnections does on AWS (to compare).
    earlyConnections: options.earlyConnections,
    // Peer-to-peer sessions on loopback only: candidates offered and tried are 127.0.0.1.
    webrtc: { hostAddresses: ['127.0.0.1'], remoteAddresses: ['127.0.0.1'] },
  }).catch(async (error: unknown) => {
    await voice.stop();
    throw error;
  });
  return {
    streamUrl: `ws://127.0.0.1:${media.port}${MEDIA_STREAM_PATH}`,
    providers: voice,
    voiceKeys: voice.keys,
    platformModelEnv: { LLM_API_URL: voice.settings.LLM_API_URL!, LLM_MODEL: voice.settings.LLM_MODEL! },
    voiceSettings: voice.settings,
    stop: async () => {
      await media.close();
      await voice.stop();
    },
  };
}
