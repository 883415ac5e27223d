/**
 * The Flux side of the local Deepgram (`wss://api.deepgram.com/v2/listen`): binary mu-law in,
 * `Connected` then `TurnInfo` messages out, as Flux sends them: `StartOfTurn` at the turn's first
 * sound of speech, `Update` at each word, `EagerEndOfTurn` (with `eager_eot_threshold`) and
 * `TurnResumed` if speech comes after it, `EndOfTurn` (trigger `model`, or `timeout` after
 * `eot_timeout_ms`). It "hears" the synthetic speech of media/src/audio/tones.ts, punctuation
 * included (as the Deepgram fake hears it: ./speech-frames.ts), and stands in for Flux's model with a rule a test can reason about: after a complete
 * sentence (ending in `.`, `?` or `!`) its end-of-turn confidence grows with the pause, reaching 1
 * at COMPLETE_AFTER_MS; after words that do not end a sentence ("My number is 555,") it stays at
 * 0.1, so only the timeout ends that turn. Time is the audio's own, so it is deterministic.
 */
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import { FRAME_SAMPLES, isVoiceActivity } from '../../media/src/audio/tones.ts';
import { SpeechFrames } from './speech-frames.ts';

/** The pause after a complete sentence at which the fake's end-of-turn confidence reaches 1. */
export const COMPLETE_AFTER_MS = 250;
/** Its confidence in the middle of a sentence, however long the pause. */
const INCOMPLETE_CONFIDENCE = 0.1;

const FRAME_MS = (FRAME_SAMPLES / 8000) * 1000;
const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

export interface FluxStreamOptions {
  /** Each `EndOfTurn` comes this much later (a slower service, for the bench); default 0. */
  endOfTurnDelayMs?: number;
}

/** One Flux stream on an accepted WebSocket. */
export function fluxStream(ws: WebSocket, query: URLSearchParams, options: FluxStreamOptions = {}): void {
  const requestId = randomUUID();
  const eotThreshold = Number(query.get('eot_threshold') ?? 0.7);
  const eagerThreshold = query.has('eager_eot_threshold') ? Number(query.get('eager_eot_threshold')) : null;
  const timeoutMs = Number(query.get('eot_timeout_ms') ?? 5000);
  let sequence = 0;
  let outbox = Promise.resolve();
  const send = (message: object, delayMs = 0) => {
    const numbered = { ...message, sequence_id: sequence++ };
    outbox = outbox.then(async () => {
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(numbered));
    });
  };
  send({ type: 'Connected', request_id: requestId });

  let samplesSeen = 0;
  let turnIndex = 0;
  let text = '';
  let turnStart = 0;
  let silentMs = 0;
  let eagerSent = false;

  const turnInfo = (event: string, confidence: number, extra: object = {}) => ({
    type: 'TurnInfo',
    request_id: requestId,
    event,
    turn_index: turnIndex,
    audio_window_start: round(turnStart),
    audio_window_end: round(samplesSeen / 8000),
    transcript: text.trim(),
    words: words(text, turnStart),
    end_of_turn_confidence: confidence,
    ...extra,
  });
  const confidence = () =>
    /[.!?]["')\]]*$/.test(text.trim()) ? Math.min(1, silentMs / COMPLETE_AFTER_MS) : INCOMPLETE_CONFIDENCE;

  const onFrame = (frame: Int16Array, char: string | null, samples: number) => {
    const at = samplesSeen / 8000;
    samplesSeen += samples;
    if (char !== null) {
      if (!text) {
        turnStart = at;
        send(turnInfo('StartOfTurn', 0));
      } else if (eagerSent) {
        eagerSent = false;
        send(turnInfo('TurnResumed', 0));
      }
      text += char;
      silentMs = 0;
      if (char === ' ' && text.trim()) send(turnInfo('Update', 0));
      return;
    }
    if (!text.trim() || isVoiceActivity(frame)) return; // no turn yet, or noise: no words and no pause
    silentMs += (samples / 8000) * 1000;
    const now = confidence();
    if (eagerThreshold !== null && !eagerSent && now >= eagerThreshold && now < eotThreshold) {
      eagerSent = true;
      send(turnInfo('EagerEndOfTurn', now));
    }
    const timedOut = silentMs >= timeoutMs;
    if (now >= eotThreshold || timedOut) {
      // An eager end of turn always comes before the end of a turn Flux's model ends.
      if (eagerThreshold !== null && !eagerSent && !timedOut) send(turnInfo('EagerEndOfTurn', now));
      send(
        turnInfo('EndOfTurn', now, { trigger: timedOut && now < eotThreshold ? 'timeout' : 'model' }),
        options.endOfTurnDelayMs,
      );
      text = '';
      eagerSent = false;
      turnIndex += 1;
    }
  };

  // Words are heard wherever a browser's chunks of audio begin, and through its glitches.
  const frames = new SpeechFrames({ frame: onFrame, skipped: (samples) => void (samplesSeen += samples) });

  ws.on('message', (data, isBinary) => {
    if (!isBinary) {
      const message = JSON.parse(String(data)) as { type?: string };
      if (message.type === 'CloseStream') void outbox.then(() => ws.close(1000));
      return;
    }
    frames.append(data as Buffer);
  });
}

/** Flux's words: punctuated, with times (one character is one 20 ms frame). */
function words(text: string, start: number) {
  return [...text.matchAll(/\S+/g)].map((match) => ({
    word: match[0],
    confidence: 0.99,
    start: round(start + (match.index * FRAME_MS) / 1000),
    end: round(start + ((match.index + match[0].length) * FRAME_MS) / 1000),
  }));
}
