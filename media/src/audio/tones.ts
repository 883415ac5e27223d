/**
 * Deterministic synthetic speech for local runs and tests: text becomes audio that the local
 * speech-to-text fake turns back into exactly the same text, through mu-law and Media Streams.
 *
 * Encoding (one symbol per 20 ms frame = 160 samples at 8 kHz, the Media Streams frame):
 * printable ASCII `' '`..`'~'` is symbol 0..94 (anything else is sent as `?`); symbol s is the sum
 * of two tones, like DTMF: a low tone of (8 + floor(s / 10)) x 50 Hz (400..850 Hz) and a high tone
 * of (24 + s % 10) x 50 Hz (1200..1650 Hz), each 4,000 in amplitude. Every tone is a whole number
 * of cycles in its frame, so the frequencies are orthogonal over one frame and a Goertzel filter
 * per frequency decodes each frame exactly, even after mu-law. A frame under SILENCE_RMS is
 * silence. The space character is a symbol too, so gaps between words are not silence.
 */

export const SAMPLE_RATE = 8000;
export const FRAME_SAMPLES = 160; // 20 ms at 8 kHz: the Media Streams frame size
export const SILENCE_RMS = 500;
const FIRST_CHAR = 32;
const SYMBOLS = 95;
const TONE_AMPLITUDE = 4000;
const LOW_BINS = Array.from({ length: 10 }, (_, i) => 8 + i);
const HIGH_BINS = Array.from({ length: 10 }, (_, i) => 24 + i);

function symbolOf(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  return code >= FIRST_CHAR && code < FIRST_CHAR + SYMBOLS ? code - FIRST_CHAR : '?'.charCodeAt(0) - FIRST_CHAR;
}

/** One 20 ms two-tone frame per character (8 kHz mono PCM); the same text always gives the same samples. */
export function synthesizeSpeech(text: string): Int16Array {
  const chars = Array.from(text);
  const out = new Int16Array(chars.length * FRAME_SAMPLES);
  chars.forEach((char, index) => {
    const symbol = symbolOf(char);
    const low = LOW_BINS[Math.floor(symbol / 10)]!;
    const high = HIGH_BINS[symbol % 10]!;
    for (let i = 0; i < FRAME_SAMPLES; i++) {
      const t = i / FRAME_SAMPLES;
      out[index * FRAME_SAMPLES + i] = Math.round(
        TONE_AMPLITUDE * (Math.sin(2 * Math.PI * low * t) + Math.sin(2 * Math.PI * high * t)),
      );
    }
  });
  return out;
}

/** Energy of `frame` at bin k (k cycles per frame): Goertzel. */
function binPower(frame: Int16Array, k: number): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * k) / frame.length);
  let previous = 0;
  let beforePrevious = 0;
  for (let i = 0; i < frame.length; i++) {
    const current = frame[i]! + coefficient * previous - beforePrevious;
    beforePrevious = previous;
    previous = current;
  }
  return previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious;
}

const strongest = (frame: Int16Array, bins: number[]): number => {
  let best = 0;
  let bestPower = -1;
  bins.forEach((bin, index) => {
    const power = binPower(frame, bin);
    if (power > bestPower) [best, bestPower] = [index, power];
  });
  return best;
};

/** The character a 160-sample frame carries, or null for silence. */
export function decodeSpeechFrame(frame: Int16Array): string | null {
  if (frame.length !== FRAME_SAMPLES || rms(frame) < SILENCE_RMS) return null;
  const symbol = strongest(frame, LOW_BINS) * 10 + strongest(frame, HIGH_BINS);
  return symbol < SYMBOLS ? String.fromCharCode(FIRST_CHAR + symbol) : null;
}

/** Milliseconds of synthetic speech for `text`. */
export const speechMs = (text: string): number => (Array.from(text).length * FRAME_SAMPLES * 1000) / SAMPLE_RATE;

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
