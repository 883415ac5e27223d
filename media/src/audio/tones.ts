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
 * silence; a loud frame whose energy is not in its two tones (SPEECH_PURITY) is noise: voice
 * activity without words, as a cough or a door is to a real speech-to-text service. The space
 * character is a symbol too, so gaps between words are not silence.
 */

export const SAMPLE_RATE = 8000;
export const FRAME_SAMPLES = 160; // 20 ms at 8 kHz: the Media Streams frame size
export const SILENCE_RMS = 500;
/** Share of a frame's energy its two strongest tones must hold to be speech (two pure tones hold 1). */
export const SPEECH_PURITY = 0.5;
const FIRST_CHAR = 32;
const SYMBOLS = 95;
const TONE_AMPLITUDE = 4000;
const LOW_BINS = Array.from({ length: 10 }, (_, i) => 8 + i);
const HIGH_BINS = Array.from({ length: 10 }, (_, i) => 24 + i);

function symbolOf(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  return code >= FIRST_CHAR && code < FIRST_CHAR + SYMBOLS ? code - FIRST_CHAR : '?'.charCodeAt(0) - FIRST_CHAR;
}

/**
 * One 20 ms two-tone frame per character (mono PCM at `sampleRate`, 8 kHz unless given); the same
 * text always gives the same samples. At another rate the tones are the same, so a proper
 * resampler to 8 kHz gives back speech that decodes to the same text.
 */
export function synthesizeSpeech(text: string, sampleRate = SAMPLE_RATE): Int16Array {
  const frameSamples = sampleRate / 50;
  const chars = Array.from(text);
  const out = new Int16Array(chars.length * frameSamples);
  chars.forEach((char, index) => {
    const symbol = symbolOf(char);
    const low = LOW_BINS[Math.floor(symbol / 10)]!;
    const high = HIGH_BINS[symbol % 10]!;
    for (let i = 0; i < frameSamples; i++) {
      const t = i / frameSamples;
      out[index * frameSamples + i] = Math.round(
        TONE_AMPLITUDE * (Math.sin(2 * Math.PI * low * t) + Math.sin(2 * Math.PI * high * t)),
      );
    }
  });
  return out;
}

/**
 * Power of one frequency in `samples` (Goertzel), the frequency given as cycles per sample: a
 * filter per frequency is cheaper than an FFT for the few each detector looks at. Also used by
 * the DTMF detector (dtmf.ts).
 */
export function goertzelPower(samples: Int16Array, cyclesPerSample: number): number {
  const coefficient = 2 * Math.cos(2 * Math.PI * cyclesPerSample);
  let previous = 0;
  let beforePrevious = 0;
  for (let i = 0; i < samples.length; i++) {
    const current = samples[i]! + coefficient * previous - beforePrevious;
    beforePrevious = previous;
    previous = current;
  }
  return previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious;
}

/** Energy of `frame` at bin k (k cycles per frame). */
const binPower = (frame: Int16Array, k: number): number => goertzelPower(frame, k / frame.length);

const strongest = (frame: Int16Array, bins: number[]): { index: number; power: number } => {
  let best = { index: 0, power: -1 };
  bins.forEach((bin, index) => {
    const power = binPower(frame, bin);
    if (power > best.power) best = { index, power };
  });
  return best;
};

/** The character a 160-sample frame carries, or null for silence and noise. */
export const decodeSpeechFrame = (frame: Int16Array): string | null => decodeSpeechFrameOf(frame, SPEECH_PURITY);

/**
 * The character a 160-sample frame carries when its two tones hold `minPurity` of its energy at
 * least (a frame mixing two symbols holds less), else null.
 */
export function decodeSpeechFrameOf(frame: Int16Array, minPurity: number): string | null {
  if (frame.length !== FRAME_SAMPLES || rms(frame) < SILENCE_RMS) return null;
  const low = strongest(frame, LOW_BINS);
  const high = strongest(frame, HIGH_BINS);
  // A tone of amplitude A has Goertzel power (A * N / 2)^2 and energy A^2 * N / 2 over N samples.
  let energy = 0;
  for (let i = 0; i < frame.length; i++) energy += frame[i]! * frame[i]!;
  if ((low.power + high.power) / ((frame.length / 2) * energy) < minPurity) return null;
  const symbol = low.index * 10 + high.index;
  return symbol < SYMBOLS ? String.fromCharCode(FIRST_CHAR + symbol) : null;
}

/**
 * The text of synthetic speech in `samples` (8 kHz), read frame by frame from the first sound on
 * (what a listener of a whole recording hears; the speech-to-text fake reads a live stream instead).
 */
export function speechText(samples: Int16Array): string {
  let onset = 0;
  while (onset < samples.length && Math.abs(samples[onset]!) < SILENCE_RMS) onset += 1;
  let text = '';
  let at = onset;
  for (; at + FRAME_SAMPLES <= samples.length; at += FRAME_SAMPLES)
    text += decodeSpeechFrame(samples.subarray(at, at + FRAME_SAMPLES)) ?? '';
  // A last character cut a few samples short (the onset found a little late, a resampler's edge):
  // read the frame that ends with the audio.
  if (samples.length - at >= FRAME_SAMPLES * 0.9)
    text += decodeSpeechFrame(samples.subarray(samples.length - FRAME_SAMPLES)) ?? '';
  return text.trim();
}

/** Sound that is not speech (a frame's worth of louder-than-silence noise), deterministic per `seed`. */
export function noise(samples: number, seed = 1): Int16Array {
  const out = new Int16Array(samples);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < samples; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0; // Numerical Recipes' LCG
    out[i] = ((state >>> 16) % 6000) - 3000;
  }
  return out;
}

/** True when a frame is louder than silence: what a voice activity detector reacts to. */
export const isVoiceActivity = (frame: Int16Array): boolean => rms(frame) >= SILENCE_RMS;

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
