/**
 * Deterministic stand-ins for speech in local runs and tests, plus a simple energy VAD that
 * finds where a caller utterance ends.
 */

export const SAMPLE_RATE = 8000;
export const FRAME_SAMPLES = 160; // 20 ms at 8 kHz: the Media Streams frame size
const MS_PER_CHAR = 60;
const AMPLITUDE = 8000;

/** Frequency for a character: 200..975 Hz, well under the 4 kHz Nyquist limit. */
function frequencyFor(code: number): number {
  return 200 + (code % 32) * 25;
}

/**
 * One 60 ms tone per character (whitespace is a 60 ms pause), 8 kHz mono. Phase runs on across
 * characters so there are no clicks; same text always yields identical samples.
 */
export function synthesizeSpeech(text: string): Int16Array {
  const perChar = (SAMPLE_RATE * MS_PER_CHAR) / 1000;
  const chars = Array.from(text);
  const out = new Int16Array(chars.length * perChar);
  let phase = 0;
  chars.forEach((char, index) => {
    if (/\s/.test(char)) return; // silence (already zero)
    const step = (2 * Math.PI * frequencyFor(char.codePointAt(0) ?? 0)) / SAMPLE_RATE;
    for (let i = 0; i < perChar; i++) {
      out[index * perChar + i] = Math.round(AMPLITUDE * Math.sin(phase));
      phase += step;
    }
  });
  return out;
}

/** Splits into frames of frameSamples; the last frame is zero-padded so every frame is full. */
export function frames(samples: Int16Array, frameSamples = FRAME_SAMPLES): Int16Array[] {
  const out: Int16Array[] = [];
  for (let start = 0; start < samples.length; start += frameSamples) {
    const frame = new Int16Array(frameSamples);
    frame.set(samples.subarray(start, Math.min(start + frameSamples, samples.length)));
    out.push(frame);
  }
  return out;
}

export function rms(frame: Int16Array): number {
  if (frame.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < frame.length; i++) sum += frame[i]! * frame[i]!;
  return Math.sqrt(sum / frame.length);
}

export interface VadOptions {
  /** RMS above which a frame counts as speech. */
  threshold?: number;
  /** Silence after speech that ends the utterance. */
  hangoverMs?: number;
  sampleRate?: number;
}

export type VadEvent = 'speech-start' | 'speech-end';

/** Energy VAD: 'speech-start' on the first loud frame, 'speech-end' after hangoverMs of quiet. */
export class EnergyVad {
  private readonly threshold: number;
  private readonly hangoverMs: number;
  private readonly sampleRate: number;
  private speaking = false;
  private silentMs = 0;

  constructor(options: VadOptions = {}) {
    this.threshold = options.threshold ?? 500;
    this.hangoverMs = options.hangoverMs ?? 400;
    this.sampleRate = options.sampleRate ?? SAMPLE_RATE;
  }

  get inSpeech(): boolean {
    return this.speaking;
  }

  push(frame: Int16Array): VadEvent | null {
    const loud = rms(frame) >= this.threshold;
    if (!this.speaking) {
      if (!loud) return null;
      this.speaking = true;
      this.silentMs = 0;
      return 'speech-start';
    }
    if (loud) {
      this.silentMs = 0;
      return null;
    }
    this.silentMs += (frame.length * 1000) / this.sampleRate;
    if (this.silentMs < this.hangoverMs) return null;
    this.speaking = false;
    this.silentMs = 0;
    return 'speech-end';
  }

  reset(): void {
    this.speaking = false;
    this.silentMs = 0;
  }
}
