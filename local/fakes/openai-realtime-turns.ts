/**
 * The local Realtime fake's ears: the caller's `audio/pcmu` buffer cut into 20 ms frames, and the
 * server VAD on the audio's own time (speech starts on a frame with voice, a turn stops after
 * `silence_duration_ms` of silence). It "hears" the synthetic speech of media/src/audio/tones.ts,
 * one character a frame. The protocol (the events these become) is ./openai-realtime-session.ts.
 */
import { randomUUID } from 'node:crypto';
import { decodeMulaw } from '../../media/src/audio/mulaw.ts';
import { decodeSpeechFrame, FRAME_SAMPLES, isVoiceActivity } from '../../media/src/audio/tones.ts';

export const FRAME_MS = (FRAME_SAMPLES * 1000) / 8000;

/** The session's `audio.input.turn_detection`. */
export interface TurnDetection {
  type: string;
  silence_duration_ms?: number;
  create_response?: boolean;
  interrupt_response?: boolean;
}

/** A turn of the caller's speech: its item, where it started, the words heard so far. */
export interface Speech {
  itemId: string;
  startMs: number;
  text: string;
}

export interface TurnEvents {
  /** Speech began (`input_audio_buffer.speech_started`). */
  started(speech: Speech, detection: TurnDetection): void;
  /** The turn ended on silence (`speech_stopped` at `endMs`), its words trimmed. */
  stopped(speech: Speech, endMs: number, detection: TurnDetection): void;
}

/** The input audio buffer of one session and its turn detection (none when `turn_detection` is null). */
export class InputAudio {
  /** The caller's audio heard so far (ms): the usage's input audio tokens. */
  audioMs = 0;
  private pending = Buffer.alloc(0);
  private speech: (Speech & { silentMs: number }) | null = null;

  constructor(
    private readonly detection: () => TurnDetection | null,
    private readonly events: TurnEvents,
  ) {}

  /** `input_audio_buffer.append`: mu-law bytes, heard a whole frame at a time. */
  append(bytes: Buffer): void {
    this.pending = Buffer.concat([this.pending, bytes]);
    for (; this.pending.length >= FRAME_SAMPLES; this.pending = this.pending.subarray(FRAME_SAMPLES))
      this.onFrame(decodeMulaw(this.pending.subarray(0, FRAME_SAMPLES)));
  }

  /** `input_audio_buffer.clear`: what was not heard yet, and the turn under way, dropped. */
  clear(): void {
    this.pending = Buffer.alloc(0);
    this.speech = null;
  }

  /** `input_audio_buffer.commit`: the turn under way ends now (null when there is none). */
  takeSpeech(): Speech | null {
    const speech = this.speech;
    this.speech = null;
    return speech && { itemId: speech.itemId, startMs: speech.startMs, text: speech.text.trim() };
  }

  private onFrame(frame: Int16Array): void {
    this.audioMs += FRAME_MS;
    const voice = isVoiceActivity(frame);
    const vad = this.detection();
    if (!vad) return;
    if (voice && !this.speech) {
      this.speech = { startMs: this.audioMs - FRAME_MS, itemId: `item_${randomUUID()}`, text: '', silentMs: 0 };
      this.events.started(this.speech, vad);
    }
    const speech = this.speech;
    if (!speech) return;
    const char = decodeSpeechFrame(frame);
    if (char !== null) speech.text += char;
    speech.silentMs = voice ? 0 : speech.silentMs + FRAME_MS;
    if (speech.silentMs < (vad.silence_duration_ms ?? 500)) return;
    this.speech = null;
    this.events.stopped(
      { itemId: speech.itemId, startMs: speech.startMs, text: speech.text.trim() },
      this.audioMs,
      vad,
    );
  }
}
