/** Minimal RIFF/WAVE writer (PCM 16-bit little-endian) for call recordings. */

export const WAV_HEADER_BYTES = 44;

export function encodeWav(samples: Int16Array, sampleRate: number, channels = 1): Buffer {
  const buffer = Buffer.alloc(WAV_HEADER_BYTES + samples.length * 2);
  wavHeader(samples.length * 2, sampleRate, channels).copy(buffer);
  // Explicit LE writes: independent of host endianness (Int16Array views are host-endian).
  for (let i = 0; i < samples.length; i++) buffer.writeInt16LE(samples[i]!, WAV_HEADER_BYTES + i * 2);
  return buffer;
}

/** The 44-byte header of a PCM 16-bit WAV file holding `dataBytes` of samples. */
export function wavHeader(dataBytes: number, sampleRate: number, channels = 1): Buffer {
  const bitsPerSample = 16;
  const blockAlign = channels * (bitsPerSample / 8);
  const buffer = Buffer.alloc(WAV_HEADER_BYTES);
  buffer.write('RIFF', 0, 'ascii');
  buffer.writeUInt32LE(36 + dataBytes, 4); // file size minus the 8-byte RIFF header
  buffer.write('WAVE', 8, 'ascii');
  buffer.write('fmt ', 12, 'ascii');
  buffer.writeUInt32LE(16, 16); // fmt chunk size for PCM
  buffer.writeUInt16LE(1, 20); // audio format 1 = PCM
  buffer.writeUInt16LE(channels, 22);
  buffer.writeUInt32LE(sampleRate, 24);
  buffer.writeUInt32LE(sampleRate * blockAlign, 28); // byte rate
  buffer.writeUInt16LE(blockAlign, 32);
  buffer.writeUInt16LE(bitsPerSample, 34);
  buffer.write('data', 36, 'ascii');
  buffer.writeUInt32LE(dataBytes, 40);
  return buffer;
}

export interface WavHeader {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  dataBytes: number;
}

/** Parses the canonical 44-byte header written by encodeWav; throws on anything else. */
export function parseWavHeader(buffer: Buffer): WavHeader {
  if (buffer.length < WAV_HEADER_BYTES) throw new Error('WAV too short');
  if (buffer.toString('ascii', 0, 4) !== 'RIFF' || buffer.toString('ascii', 8, 12) !== 'WAVE')
    throw new Error('not a RIFF/WAVE file');
  if (buffer.toString('ascii', 12, 16) !== 'fmt ' || buffer.toString('ascii', 36, 40) !== 'data')
    throw new Error('unexpected WAV chunk layout');
  if (buffer.readUInt16LE(20) !== 1) throw new Error('not PCM');
  return {
    sampleRate: buffer.readUInt32LE(24),
    channels: buffer.readUInt16LE(22),
    bitsPerSample: buffer.readUInt16LE(34),
    dataBytes: buffer.readUInt32LE(40),
  };
}
