/**
 * ITU-T G.711 mu-law codec (the telephony wire format: 8 kHz, 1 byte per sample).
 * Only erasable TypeScript syntax: the container runs this file with Node's type stripping.
 */

const BIAS = 0x84;
const CLIP = 32635;

/** Encodes one 16-bit linear PCM sample to a mu-law byte. */
export function linearToMulaw(sample: number): number {
  let pcm = Math.trunc(sample);
  const sign = pcm < 0 ? 0x80 : 0;
  if (pcm < 0) pcm = -pcm;
  if (pcm > CLIP) pcm = CLIP;
  pcm += BIAS;
  // Segment (exponent) = position of the highest set bit above bit 7.
  let exponent = 7;
  for (let mask = 0x4000; (pcm & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (pcm >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** Decodes one mu-law byte to a 16-bit linear PCM sample. */
export function mulawToLinear(byte: number): number {
  const u = ~byte & 0xff;
  const sign = u & 0x80;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  const magnitude = (((mantissa << 3) + BIAS) << exponent) - BIAS;
  return sign ? 0 - magnitude : magnitude; // `0 - 0` is +0, so byte 0x7F decodes to 0 (not -0)
}

// 256-entry decode table: decoding runs for every inbound 20 ms frame of every call.
const DECODE_TABLE = Int16Array.from({ length: 256 }, (_, byte) => mulawToLinear(byte));

export function decodeMulaw(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length);
  decodeMulawInto(bytes, out);
  return out;
}

/** Decodes into `out` (at least as long as `bytes`), for a caller that reuses one buffer per frame. */
export function decodeMulawInto(bytes: Uint8Array, out: Int16Array): void {
  for (let i = 0; i < bytes.length; i++) out[i] = DECODE_TABLE[bytes[i]!]!;
}

export function encodeMulaw(samples: Int16Array): Buffer {
  const out = Buffer.allocUnsafe(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = linearToMulaw(samples[i]!);
  return out;
}
