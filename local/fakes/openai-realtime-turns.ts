/**
 * The local Realtime fake's ears: the caller's `audio/pcmu` buffer heard frame by frame, and the
 * server VAD on the audio's own time (speech starts on a frame with voice, a turn stops after
 * `silence_duration_ms` of silence). It "hears" the synthetic speech of media/src/audio/tones.ts,
 * one character a frame, as the Deepgram fake does (./speech-frames.ts: wherever a browser's
 * chunks of it begin, through its glitches). The protocol (the events these become) is
 * ./openai-realtime-session.ts.
 */
import { randomUUID } from 'node:crypto';
import { FRAME_SAMPLES, isVoiceActivity } from '../../media/src/audio/tones.ts';
import { SpeechFrames } from './speech-frames.ts';

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
  /** The caller's audio heard so far, in samples (8 kHz). */
  private samples = 0;
  private readonly frames = new SpeechFrames({
    frame: (frame, char, samples) => this.onFrame(frame, char, samples),
    skipped: (samples) => void (this.samples += samples),
  });
  private speech: (Speech & { silentMs: number }) | null = null;

  constructor(
    private readonly detection: () => TurnDetection | null,
    private readonly events: TurnEvents,
  ) {}

  /** The caller's audio heard so far (ms): the usage's input audio tokens, the VAD's times. */
  get audioMs(): number {
    return Math.floor(this.samples / 8);
  }

  /** `input_audio_buffer.append`: mu-law bytes, heard a whole frame at a time. */
  append(bytes: Buffer): void {
    this.frames.append(bytes);
  }

  /** `input_audio_buffer.clear`: what was not heard yet, and the turn under way, dropped. */
  clear(): void {
    this.frames.clear();
    this.speech = null;
  }

  /** `input_audio_buffer.commit`: the turn under way ends now (null when there is none). */
  takeSpeech(): Speech | null {
    const speech = this.speech;
    this.speech = null;
    return speech && { itemId: speech.itemId, startMs: speech.startMs, text: speech.text.trim() };
  }

  /** A frame heard (`samples` long: less for one cut short by a glitch), with its character if any. */
  private onFrame(frame: Int16Array, char: string | null, samples: number): void {
    const startMs = this.audioMs;
    this.samples += samples;
    const voice = isVoiceActivity(frame);
    const vad = this.detection();
    if (!vad) return;
    if (voice && !this.speech) {
      this.speech = { startMs, itemId: `item_${randomUUID()}`, text: '', silentMs: 0 };
      this.events.started(this.speech, vad);
    }
    const speech = this.speech;
    if (!speech) return;
    if (char !== null) speech.text += char;
    speech.silentMs = voice ? 0 : speech.silentMs + samples / 8;
    if (speech.silentMs < (vad.silence_duration_ms ?? 500)) return;
    this.speech = null;
    this.events.stopped(
      { itemId: speech.itemId, startMs: speech.startMs, text: speech.text.trim() },
      this.audioMs,
      vad,
    );
  }
}
