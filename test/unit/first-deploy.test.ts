import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCallPlan } from '../../media/src/agent/call-plan.ts';
import { platformProviders } from '../../media/src/agent/providers.ts';
import { HEALTH_PATH } from '../../media/src/deployment.ts';
import { startMediaService } from '../../media/src/service.ts';
import { CallPipeline } from '../../media/src/call/call-pipeline.ts';
import { SimulatedCaller } from '../../media/src/streams/simulated-caller.ts';
import { startFakeVoiceProviders, type FakeVoiceProviders } from '../../local/fakes/voice-providers.ts';
import type { LocalSecretsManager } from '../../local/secrets-manager.ts';
import { useLocalSecretsManager } from '../support/secrets.ts';
import { SecretNotReadyError } from '../../shared/config/secrets.ts';
import { callInput } from '../support/voice.ts';
import { NO_TELEMETRY } from '../../media/src/telemetry/turn-telemetry.ts';

/**
 * A fresh deploy: the VoiceProviders secret holds its first value (every key empty, as
 * infra/constructs/voice-providers.ts creates it) and the media task reads it, through Powertools
 * Parameters, from (the local stand-in of) Secrets Manager.
 */
const EMPTY_KEYS = { deepgramApiKey: '', llmApiKey: '', elevenLabsApiKey: '', realtimeApiKey: '' };
let secretsManager: LocalSecretsManager;
let fakes: FakeVoiceProviders;

beforeAll(async () => {
  fakes = await startFakeVoiceProviders();
  secretsManager = await useLocalSecretsManager({
    'voice-providers-first-deploy': JSON.stringify(EMPTY_KEYS),
    'media-streams': 'unit-test-stream-key',
  });
  Object.assign(process.env, {
    MEDIA_STREAM_SECRET_ARN: secretsManager.arns['media-streams'],
    VOICE_PROVIDERS_SECRET_ARN: secretsManager.arns['voice-providers-first-deploy'],
  });
});
afterAll(async () => {
  await secretsManager.stop();
  await fakes.stop();
});

describe('the first deploy: the media task before the operator fills in the provider keys', () => {
  it('starts and is healthy with every key empty', async () => {
    const service = await startMediaService({
      port: 0,
      host: '127.0.0.1',
      calls: { providers: platformProviders(fakes.settings), settings: fakes.settings },
      log: () => {},
      telemetry: NO_TELEMETRY,
    });
    try {
      expect((await fetch(`http://127.0.0.1:${service.port}${HEALTH_PATH}`)).status).toBe(200);
    } finally {
      await service.close();
    }
  });

  it('fails a call that needs a missing key, naming the key and the secret; a key filled in counts at the next call', async () => {
    const platform = platformProviders(fakes.settings);
    const secretArn = secretsManager.arns['voice-providers-first-deploy']!;
    const missing = `The secret in VOICE_PROVIDERS_SECRET_ARN (${secretArn}) has no value for deepgramApiKey`;
    await expect(platform.stt()).rejects.toThrow(SecretNotReadyError);
    await expect(platform.stt()).rejects.toThrow(missing);
    // An agent of the realtime engine: its calls fail naming the Realtime API's key.
    await expect(platform.realtime()).rejects.toThrow(
      `The secret in VOICE_PROVIDERS_SECRET_ARN (${secretArn}) has no value for realtimeApiKey`,
    );

    // The call loop with the platform's providers, as call-sessions.ts prepares it.
    const session = new CallPipeline({
      prepare: async () => ({
        plan: buildCallPlan(callInput({ workflowDefinition: { greeting: 'Hello.' } })),
        providers: { stt: await platform.stt(), llm: await platform.llm(), tts: await platform.tts() },
        organizationId: 1,
      }),
      send: () => {},
    });
    const caller = new SimulatedCaller();
    for (const message of caller.start()) await session.handle(message);
    await session.hangUpRequested; // nothing to serve the call with: hung up at once, no apology possible
    const result = await session.finish('closed');
    await result.recording?.dispose();
    expect(result.failure).toContain(missing);
    expect(result.fragments).toEqual([]);

    // The operator fills the keys in: no new task, no wait for the 5-minute cache.
    secretsManager.put('voice-providers-first-deploy', JSON.stringify(fakes.keys));
    expect((await platform.stt()).name).toBe('Deepgram');
    expect((await platform.tts()).name).toBe('ElevenLabs');
    expect((await platform.realtime()).name).toBe('OpenAI Realtime');
  });
});
