/**
 * The providers' process of bench/media-capacity.ts: the local Deepgram, OpenAI-compatible,
 * ElevenLabs and tool fakes at the fixed delays of bench/voice-latency.ts, in a process of their
 * own. In the driver's process they shared one event loop with the simulated callers (at 200 calls
 * 10,000 frames a second sent and the fake Deepgram decoding as many), so a turn's final result,
 * first token or first audio waited behind the callers' frames and the turn overhead measured
 * the load generator as much as the media process. Tells the driver where they listen over IPC;
 * stops them on `stop`.
 */
import { startFakeVoiceProviders } from '../local/fakes/voice-providers.ts';
import { FAKE_DELAYS_MS } from './voice-latency.ts';

/** What the media process needs to reach the fakes. */
export interface FakesReady {
  type: 'fakes';
  settings: Record<string, string>;
  keys: Record<string, string>;
  toolOrigin: string;
}

const fakes = await startFakeVoiceProviders({
  deepgram: { finalDelayMs: FAKE_DELAYS_MS.stt },
  openai: { firstTokenDelayMs: FAKE_DELAYS_MS.llm },
  elevenlabs: { firstByteDelayMs: FAKE_DELAYS_MS.tts },
});
process.on('message', (message: { type: string }) => {
  if (message.type !== 'stop') return;
  void fakes.stop().finally(() => process.exit(0));
});
process.send!({
  type: 'fakes',
  settings: fakes.settings,
  keys: fakes.keys,
  toolOrigin: fakes.tools.origin,
} satisfies FakesReady);
