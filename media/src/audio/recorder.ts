/**
 * Records a call as one mono 8 kHz timeline mixing both directions, so a single WAV can be
 * stored per run. Each direction is placed at its own wall-clock offset; overlap is summed.
 */
import { decodeMulaw } from './mulaw.ts';
import { encodeWav } from './wav.ts';

export const RECORDING_SAMPLE_RATE = 8000;
const SAMPLES_PER_MS = RECORDING_SAMPLE_RATE / 1000;

export class CallRecorder {
  // Int32 accumulation would make later clipping order-independent, but clipping each add keeps
  // memory at 2 bytes/sample and is what a listener hears anyway.
  private buffer = new Int16Array(RECORDING_SAMPLE_RATE * 10);
  private length = 0;

  addInbound(mulawBytes: Uint8Array, atMs: number): void {
    this.addPcm(decodeMulaw(mulawBytes), atMs);
  }

  addOutbound(mulawBytes: Uint8Array, atMs: number): void {
    this.addPcm(decodeMulaw(mulawBytes), atMs);
  }

  /** Mixes linear samples in at atMs (sample offset atMs * 8); negative offsets clamp to 0. */
  addPcm(samples: Int16Array, atMs: number): void {
    const offset = Math.max(0, Math.round(atMs * SAMPLES_PER_MS));
    const end = offset + samples.length;
    this.ensureCapacity(end);
    for (let i = 0; i < samples.length; i++) {
      const mixed = this.buffer[offset + i]! + samples[i]!;
      this.buffer[offset + i] = mixed > 32767 ? 32767 : mixed < -32768 ? -32768 : mixed;
    }
    if (end > this.length) this.length = end;
  }

  /** Number of samples on the timeline (gaps before the last audio count as silence). */
  get sampleCount(): number {
    return this.length;
  }

  get durationMs(): number {
    return this.length / SAMPLES_PER_MS;
  }

  samples(): Int16Array {
    return this.buffer.slice(0, this.length);
  }

  toWav(): Buffer {
    return encodeWav(this.samples(), RECORDING_SAMPLE_RATE, 1);
  }

  private ensureCapacity(required: number): void {
    if (required <= this.buffer.length) return;
    let size = this.buffer.length;
    while (size < required) size *= 2; // amortised growth; new space is zero = silence
    const grown = new Int16Array(size);
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
  }
}
