/**
 * 24 kHz to 8 kHz for speech that comes at 24 kHz (OpenAI's `pcm`): a linear-phase low-pass FIR
 * filter, then every third sample. Without the filter, everything between 4 and 12 kHz (sibilants,
 * breath) folds back into the telephone band as hiss.
 *
 * The filter is a Blackman-windowed sinc, cut off at 3.7 kHz, 97 taps: flat within 0.1 dB up to
 * 3 kHz (the telephone band is 300-3,400 Hz), at least 70 dB down from 4.4 kHz, where what is left
 * would fold into the band (test/unit/media-audio.test.ts measures both). It runs as a stream:
 * each chunk continues where the previous one stopped, with no clicks at chunk edges, and its
 * delay of 48 input samples (16 output samples, 2 ms) is taken out so the output lines up with
 * the input sample for sample. Only erasable TypeScript syntax (the container strips types).
 */

export const INPUT_RATE = 24_000;
export const OUTPUT_RATE = 8_000;
const FACTOR = INPUT_RATE / OUTPUT_RATE;
export const CUTOFF_HZ = 3_700;
const TAPS = 97;
const DELAY = (TAPS - 1) / 2;

/** The filter's coefficients, normalized to unity gain at 0 Hz. */
export const LOW_PASS: Float64Array = (() => {
  const taps = new Float64Array(TAPS);
  const fc = CUTOFF_HZ / INPUT_RATE;
  for (let n = 0; n < TAPS; n++) {
    const m = n - DELAY;
    const sinc = m === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * m) / (Math.PI * m);
    const blackman =
      0.42 - 0.5 * Math.cos((2 * Math.PI * n) / (TAPS - 1)) + 0.08 * Math.cos((4 * Math.PI * n) / (TAPS - 1));
    taps[n] = sinc * blackman;
  }
  const sum = taps.reduce((total, tap) => total + tap, 0);
  return taps.map((tap) => tap / sum);
})();

/** A stream of 24 kHz samples to 8 kHz: y[k] = sum over t of LOW_PASS[t] * x[3k + DELAY - t]. */
export class Downsampler {
  /** Input samples from index `bufferStart` on (earlier ones are no longer needed). */
  private buffer = new Float64Array(0);
  private bufferStart = 0;
  private consumed = 0;
  private produced = 0;

  /** 24 kHz samples in, the 8 kHz samples they complete out. */
  push(input: Int16Array): Int16Array {
    const joined = new Float64Array(this.buffer.length + input.length);
    joined.set(this.buffer);
    joined.set(input, this.buffer.length);
    this.buffer = joined;
    this.consumed += input.length;
    const out: number[] = [];
    while (FACTOR * this.produced + DELAY < this.consumed) out.push(this.output(this.produced++));
    // The next output reaches back to input FACTOR * produced - DELAY.
    const keepFrom = Math.max(this.bufferStart, FACTOR * this.produced - DELAY);
    this.buffer = this.buffer.slice(keepFrom - this.bufferStart);
    this.bufferStart = keepFrom;
    return Int16Array.from(out);
  }

  /** The rest of the output, as if silence followed: one 8 kHz sample for every three in. */
  flush(): Int16Array {
    const outputs = Math.ceil(this.consumed / FACTOR);
    const out: number[] = [];
    while (this.produced < outputs) out.push(this.output(this.produced++));
    return Int16Array.from(out);
  }

  private output(k: number): number {
    const newest = FACTOR * k + DELAY;
    let sum = 0;
    for (let t = 0; t < TAPS; t++) {
      const index = newest - t;
      // Before the first sample, and past the last one at flush, the input is silence.
      if (index >= this.bufferStart && index < this.consumed)
        sum += LOW_PASS[t]! * this.buffer[index - this.bufferStart]!;
    }
    return Math.max(-32768, Math.min(32767, Math.round(sum)));
  }
}
