import { describe, expect, it } from 'vitest';
import { decodeMulaw, encodeMulaw, linearToMulaw, mulawToLinear } from '../../media/src/audio/mulaw.ts';
import { CallRecorder } from '../../media/src/audio/recorder.ts';
import { OpenAiTextToSpeech } from '../../media/src/agent/providers.ts';
import { KEY_SEQUENCE, KeyDetector, keyTones } from '../../media/src/audio/dtmf.ts';
import { CUTOFF_HZ, Downsampler, INPUT_RATE, LOW_PASS, OUTPUT_RATE } from '../../media/src/audio/resampler.ts';
import {
  decodeSpeechFrame,
  frames,
  isVoiceActivity,
  noise,
  rms,
  SILENCE_RMS,
  synthesizeSpeech,
} from '../../media/src/audio/tones.ts';
import { startFakeOpenAi } from '../../local/fakes/openai-compatible.ts';
import { encodeWav, parseWavHeader } from '../../media/src/audio/wav.ts';

describe('mu-law (G.711)', () => {
  it.each([
    [0xff, 0],
    [0x7f, 0],
    [0x00, -32124],
    [0x80, 32124],
    [0xfe, 8],
    [0x7e, -8],
  ])('decodes byte %i to %i', (byte, sample) => {
    expect(mulawToLinear(byte)).toBe(sample);
  });

  it.each([
    [0, 0xff],
    [32767, 0x80],
    [32124, 0x80],
    [-32768, 0x00],
    [-32124, 0x00],
    [-1, 0x7f], // tiny negatives land in the zero segment of the negative half
  ])('encodes sample %i to byte %i', (sample, byte) => {
    expect(linearToMulaw(sample)).toBe(byte);
  });

  it('decode then encode is the identity on all bytes except the duplicate zero', () => {
    for (let byte = 0; byte < 256; byte++) {
      const back = linearToMulaw(mulawToLinear(byte));
      expect(back).toBe(byte === 0x7f ? 0xff : byte);
    }
  });

  it('round-trip error is within the quantisation step of each segment', () => {
    for (let sample = -32768; sample <= 32767; sample += 7) {
      const decoded = mulawToLinear(linearToMulaw(sample));
      const clipped = Math.max(-32635, Math.min(32635, sample));
      // Segment step doubles per exponent; worst case is half of 1024 at the top plus clipping.
      const bound = Math.max(8, Math.abs(clipped) / 16);
      expect(Math.abs(decoded - clipped)).toBeLessThanOrEqual(bound);
    }
  });

  it('buffer versions match the scalar ones', () => {
    const samples = Int16Array.from([0, 100, -100, 1000, -1000, 32767, -32768]);
    const encoded = encodeMulaw(samples);
    expect(encoded).toBeInstanceOf(Buffer);
    expect([...encoded]).toEqual([...samples].map(linearToMulaw));
    expect([...decodeMulaw(encoded)]).toEqual([...encoded].map(mulawToLinear));
  });
});

describe('encodeWav', () => {
  it('writes a canonical 44-byte PCM header, byte by byte', () => {
    const wav = encodeWav(Int16Array.from([1, -2, 0x1234]), 8000);
    expect(wav.length).toBe(44 + 6);
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.readUInt32LE(4)).toBe(36 + 6);
    expect(wav.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect([...wav.subarray(16, 20)]).toEqual([16, 0, 0, 0]);
    expect([...wav.subarray(20, 24)]).toEqual([1, 0, 1, 0]); // PCM, mono
    expect([...wav.subarray(24, 28)]).toEqual([0x40, 0x1f, 0, 0]); // 8000
    expect([...wav.subarray(28, 32)]).toEqual([0x80, 0x3e, 0, 0]); // 16000 bytes/s
    expect([...wav.subarray(32, 36)]).toEqual([2, 0, 16, 0]); // blockAlign 2, 16 bits
    expect(wav.toString('ascii', 36, 40)).toBe('data');
    expect(wav.readUInt32LE(40)).toBe(6);
    expect([...wav.subarray(44)]).toEqual([1, 0, 0xfe, 0xff, 0x34, 0x12]); // little-endian samples
  });

  it('parses its own header, including stereo', () => {
    expect(parseWavHeader(encodeWav(new Int16Array(10), 16000, 2))).toEqual({
      sampleRate: 16000,
      channels: 2,
      bitsPerSample: 16,
      dataBytes: 20,
    });
    const stereo = encodeWav(new Int16Array(4), 16000, 2);
    expect(stereo.readUInt32LE(28)).toBe(64000);
    expect(stereo.readUInt16LE(32)).toBe(4);
    expect(() => parseWavHeader(Buffer.from('not a wav file at all, definitely not one....'))).toThrow();
  });
});

describe('CallRecorder', () => {
  const mulaw = (value: number, count: number) => encodeMulaw(new Int16Array(count).fill(value));
  /** The recording's samples, read back from its WAV file (which is then deleted). */
  async function samplesOf(recorder: CallRecorder): Promise<Int16Array> {
    const file = recorder.finish();
    const wav = await file.read();
    await file.dispose();
    expect(wav.length).toBe(file.bytes);
    const header = parseWavHeader(wav);
    expect(header).toMatchObject({ sampleRate: 8000, channels: 1, bitsPerSample: 16 });
    return Int16Array.from({ length: header.dataBytes / 2 }, (_, i) => wav.readInt16LE(44 + i * 2));
  }

  it('places audio at atMs * 8 with silent gaps and extends the timeline', async () => {
    const recorder = new CallRecorder();
    recorder.addInbound(mulaw(1000, 160), 0);
    recorder.addOutbound(mulaw(-1000, 160), 100);
    expect(recorder.sampleCount).toBe(800 + 160);
    expect(recorder.durationMs).toBe(120);
    const samples = await samplesOf(recorder);
    const level = mulawToLinear(linearToMulaw(1000));
    expect(samples[0]).toBe(level);
    expect(samples[159]).toBe(level);
    expect(samples.subarray(160, 800).every((sample) => sample === 0)).toBe(true);
    expect(samples[800]).toBe(-level);
  });

  it('mixes overlapping directions by summing, with clipping', async () => {
    const recorder = new CallRecorder();
    recorder.addInbound(mulaw(1000, 160), 0);
    recorder.addOutbound(mulaw(2000, 80), 10);
    const samples = await samplesOf(recorder);
    expect(samples.length).toBe(160);
    expect(samples[80]).toBe(mulawToLinear(linearToMulaw(1000)) + mulawToLinear(linearToMulaw(2000)));
    expect(samples[79]).toBe(mulawToLinear(linearToMulaw(1000)));

    const loud = new CallRecorder();
    loud.addInbound(mulaw(30000, 8), 0);
    loud.addOutbound(mulaw(30000, 8), 0);
    loud.addInbound(mulaw(-30000, 8), 1);
    loud.addOutbound(mulaw(-30000, 8), 1);
    const loudSamples = await samplesOf(loud);
    expect(loudSamples[0]).toBe(32767);
    expect(loudSamples[8]).toBe(-32768);
  });

  it('writes a WAV file of the whole timeline, and an empty one for a call without audio', async () => {
    const recorder = new CallRecorder();
    recorder.addInbound(mulaw(500, 160), 25_000); // 25 s in: beyond the window held in memory
    const file = recorder.finish();
    expect(parseWavHeader(await file.read())).toEqual({
      sampleRate: 8000,
      channels: 1,
      bitsPerSample: 16,
      dataBytes: (200_000 + 160) * 2,
    });
    await file.dispose();
    await expect(file.read()).rejects.toThrow(/ENOENT/);
    const empty = new CallRecorder().finish();
    expect((await empty.read()).length).toBe(44);
    await empty.dispose();
  });

  it('holds the same 10 s in memory for an hour-long call, and writes exactly the in-memory mix, late frames included', async () => {
    const recorder = new CallRecorder();
    // The reference: the whole hour mixed in memory (what the recorder must not do).
    const reference = new Int32Array(3600 * 8000 + 160);
    // A few distinct frames, encoded and decoded once each (180,000 frames per direction).
    const encoded = new Map<number, { bytes: Buffer; decoded: Int16Array }>();
    const frameOf = (value: number) => {
      let frame = encoded.get(value);
      if (!frame) {
        const bytes = mulaw(value, 160);
        frame = { bytes, decoded: decodeMulaw(bytes) };
        encoded.set(value, frame);
      }
      return frame;
    };
    const add = (direction: 'addInbound' | 'addOutbound', value: number, atMs: number) => {
      const { bytes, decoded } = frameOf(value);
      recorder[direction](Buffer.from(bytes), atMs);
      for (let i = 0; i < 160; i++) {
        const at = Math.round(atMs * 8) + i;
        reference[at] = Math.max(-32768, Math.min(32767, reference[at]! + decoded[i]!));
      }
    };
    const memoryBytes = new Set<number>();
    for (let frame = 0; frame < 3600 * 50; frame++) {
      const atMs = frame * 20;
      add('addInbound', (frame % 7) * 300 - 900, atMs);
      // The agent talks every other second; its frames are recorded as they play, 3 ms off the caller's.
      if (frame % 100 < 50) add('addOutbound', 1200, atMs + 3);
      // Now and then a frame stamped 30 s ago: it goes into the file, mixed where it belongs.
      if (frame % 10_000 === 9_999) add('addOutbound', -2500, atMs - 30_000);
      memoryBytes.add(recorder.memoryBytes);
    }
    // After every frame, not only at the end.
    expect([...memoryBytes]).toEqual([160_000]);
    const samples = await samplesOf(recorder);
    expect(samples.length).toBe(3600 * 8000);
    for (let i = 0; i < samples.length; i++)
      if (samples[i] !== reference[i]) expect(`sample ${i}: ${samples[i]}`).toBe(`sample ${i}: ${reference[i]}`);
  }, 60_000);
});

describe('synthetic speech', () => {
  it('is deterministic, one 20 ms two-tone frame per character, loud enough to count as speech', () => {
    const a = synthesizeSpeech('Hi there');
    expect(a.length).toBe(8 * 160);
    expect(a).toEqual(synthesizeSpeech('Hi there'));
    expect(a).not.toEqual(synthesizeSpeech('Hi thera'));
    expect(Math.max(...a)).toBeLessThanOrEqual(8000);
    expect(rms(a.subarray(0, 160))).toBeGreaterThan(SILENCE_RMS);
    expect(rms(a.subarray(2 * 160, 3 * 160))).toBeGreaterThan(SILENCE_RMS); // the space is a symbol, not silence
  });

  it('decodes back to the same text through mu-law, every printable character; others become ?', () => {
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');
    const text = `${printable} Zażółć`;
    const heard = frames(synthesizeSpeech(text)).map((frame) => decodeSpeechFrame(decodeMulaw(encodeMulaw(frame))));
    expect(heard.join('')).toBe(`${printable} Za????`);
    expect(decodeSpeechFrame(new Int16Array(160))).toBeNull();
  });

  it('tells noise from speech: loud enough for voice activity, but no words', () => {
    const sound = noise(50 * 160, 7);
    expect(rms(sound)).toBeGreaterThan(SILENCE_RMS);
    const heard = frames(sound).map((frame) => decodeMulaw(encodeMulaw(frame)));
    expect(heard.every(isVoiceActivity)).toBe(true);
    expect(heard.map(decodeSpeechFrame).filter((char) => char !== null)).toEqual([]);
    expect(noise(160, 7)).toEqual(noise(160, 7));
    expect(noise(160, 7)).not.toEqual(noise(160, 8));
  });

  it('splits into 20 ms frames, zero-padding the last', () => {
    const parts = frames(Int16Array.from({ length: 330 }, (_, i) => i + 1));
    expect(parts.map((f) => f.length)).toEqual([160, 160, 160]);
    expect(parts[2]![9]).toBe(330);
    expect(parts[2]![10]).toBe(0);
    expect(frames(new Int16Array(0))).toEqual([]);
  });
});

describe('24 kHz to 8 kHz (OpenAI speech)', () => {
  const gainDb = (hz: number) => {
    let re = 0;
    let im = 0;
    LOW_PASS.forEach((tap, n) => {
      re += tap * Math.cos((2 * Math.PI * hz * n) / INPUT_RATE);
      im -= tap * Math.sin((2 * Math.PI * hz * n) / INPUT_RATE);
    });
    return 20 * Math.log10(Math.hypot(re, im));
  };
  const range = (from: number, to: number) => Array.from({ length: (to - from) / 10 + 1 }, (_, i) => from + i * 10);

  it('filters flat through the telephone band and at least 70 dB down where it would fold back', () => {
    expect(Math.max(...range(0, 3000).map((hz) => Math.abs(gainDb(hz))))).toBeLessThan(0.1);
    expect(gainDb(CUTOFF_HZ)).toBeCloseTo(-6, 0);
    expect(Math.max(...range(4400, INPUT_RATE / 2).map(gainDb))).toBeLessThan(-70);
  });

  const tone = (hz: number, samples: number) =>
    Int16Array.from({ length: samples }, (_, i) => Math.round(10_000 * Math.sin((2 * Math.PI * hz * i) / INPUT_RATE)));

  it('keeps a 1 kHz tone, removes a 5 kHz one (which would alias to 3 kHz), and lines the output up with the input', () => {
    const kept = new Downsampler();
    const low = [...kept.push(tone(1000, 2400)), ...kept.flush()];
    expect(low.length).toBe(800);
    const steady = Int16Array.from(low.slice(100, 700));
    expect(rms(steady)).toBeCloseTo(10_000 / Math.SQRT2, -2);
    // No delay: output k is the tone at input 3k.
    const expected = Int16Array.from({ length: 600 }, (_, i) =>
      Math.round(10_000 * Math.sin((2 * Math.PI * 1000 * (i + 100)) / OUTPUT_RATE)),
    );
    expect(Math.max(...steady.map((sample, i) => Math.abs(sample - expected[i]!)))).toBeLessThan(20);
    const removed = new Downsampler();
    const high = Int16Array.from([...removed.push(tone(5000, 2400)), ...removed.flush()].slice(100, 700));
    expect(rms(high)).toBeLessThan(10); // 10,000 in: more than 60 dB down
  });

  it('gives the same samples whatever the chunks the stream arrives in', () => {
    const input = Int16Array.from({ length: 9001 }, (_, i) =>
      Math.round(8000 * Math.sin(i * 0.1) + 3000 * Math.sin(i * 1.3)),
    );
    const whole = new Downsampler();
    const expected = [...whole.push(input), ...whole.flush()];
    const chunked = new Downsampler();
    const got: number[] = [];
    for (let offset = 0; offset < input.length; offset += 777)
      got.push(...chunked.push(input.subarray(offset, offset + 777)));
    got.push(...chunked.flush());
    expect(got).toEqual(expected);
    expect(got.length).toBe(3001);
  });

  it('brings OpenAI speech (24 kHz pcm, through the SDK) to 8 kHz mu-law that says the same words', async () => {
    const fake = await startFakeOpenAi({ apiKey: 'key' });
    try {
      const tts = new OpenAiTextToSpeech({ apiUrl: fake.url, apiKey: 'key' });
      const chunks: Uint8Array[] = [];
      for await (const chunk of tts.stream('Hello, see you at 9!', { language: 'en' }, new AbortController().signal))
        chunks.push(chunk);
      const mulaw = Buffer.concat(chunks);
      expect(mulaw.length).toBe('Hello, see you at 9!'.length * 160);
      expect(frames(decodeMulaw(mulaw)).map(decodeSpeechFrame).join('')).toBe('Hello, see you at 9!');
    } finally {
      await fake.stop();
    }
  });
});

describe('DTMF (keys in the audio)', () => {
  const heard = (samples: Int16Array) => {
    const detector = new KeyDetector();
    return frames(decodeMulaw(encodeMulaw(samples)))
      .map((frame) => detector.push(frame))
      .filter(Boolean)
      .join('');
  };

  it('sends every key as its two tones, 100 ms each with 100 ms between, and hears them back through mu-law', () => {
    expect(heard(keyTones('1234567890*#ABCD'))).toBe('1234567890*#ABCD');
    expect(keyTones('5').length).toBe(1600);
    expect(keyTones('5,5').length).toBe(1600 + 4000 + 1600);
    expect(heard(keyTones('55'))).toBe('55'); // the gap separates two presses of one key
    expect(KEY_SEQUENCE.test('12#,3')).toBe(true);
    expect(KEY_SEQUENCE.test('12x')).toBe(false);
  });

  it('hears no key in silence, noise, or speech that changes tone every frame', () => {
    expect(heard(new Int16Array(8000))).toBe('');
    expect(heard(noise(16_000, 5))).toBe('');
    expect(heard(synthesizeSpeech('For appointments press 2, for prices press 3.'))).toBe('');
  });
});
