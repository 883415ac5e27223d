/**
 * Records a call as one mono 8 kHz timeline mixing both directions, so a single WAV can be
 * stored per run. Each direction is placed at its own offset on the call's clock; overlap is
 * summed (clipped).
 *
 * Memory stays bounded however long the call: only the last WINDOW_SECONDS of the timeline are
 * held, where both directions still arrive (the agent's audio is recorded once it has played);
 * older audio goes to a WAV file on local disk as the call goes, FLUSH_SECONDS at a time (one
 * write and one shift of the window a second, not one per 20 ms frame), and the rare frame stamped
 * before the window is mixed into the file in place. At the end the file is uploaded as it is (no copy of
 * the call in memory) and deleted. Only erasable TypeScript syntax (the container strips types).
 */
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { endianness, tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeMulawInto } from './mulaw.ts';
import { WAV_HEADER_BYTES, wavHeader } from './wav.ts';

export const RECORDING_SAMPLE_RATE = 8000;
const SAMPLES_PER_MS = RECORDING_SAMPLE_RATE / 1000;
/** The part of the timeline held in memory (160 KB). */
export const WINDOW_SECONDS = 10;
const WINDOW_SAMPLES = WINDOW_SECONDS * RECORDING_SAMPLE_RATE;
/** How far the window moves when a frame passes its end: the window always keeps the last 9 s. */
export const FLUSH_SECONDS = 1;
const FLUSH_SAMPLES = FLUSH_SECONDS * RECORDING_SAMPLE_RATE;
const HOST_LITTLE_ENDIAN = endianness() === 'LE';
/** The frame being mixed, decoded: one buffer for every recorder, not one array per 20 ms frame. */
let decoded = new Int16Array(1600);

/** A finished recording on local disk: a complete WAV file. */
export interface RecordingFile {
  path: string;
  /** Size of the file, header included. */
  bytes: number;
  durationMs: number;
  read: () => Promise<Buffer>;
  /** Deletes the file (once it is uploaded, or not needed). */
  dispose: () => Promise<void>;
}

export class CallRecorder {
  private readonly path: string;
  private fd: number | null;
  /** The timeline from sample `windowStart` on; what is before it is in the file. */
  private readonly window = new Int16Array(WINDOW_SAMPLES);
  private windowStart = 0;
  private length = 0;

  constructor(directory = tmpdir()) {
    this.path = join(directory, `recording-${randomUUID()}.wav`);
    this.fd = openSync(this.path, 'w+', 0o600);
    writeSync(this.fd, wavHeader(0, RECORDING_SAMPLE_RATE), 0, WAV_HEADER_BYTES, 0);
  }

  addInbound(mulawBytes: Uint8Array, atMs: number): void {
    this.addMulaw(mulawBytes, atMs);
  }

  addOutbound(mulawBytes: Uint8Array, atMs: number): void {
    this.addMulaw(mulawBytes, atMs);
  }

  /** Mixes linear samples in at atMs (sample offset atMs * 8); negative offsets clamp to 0. */
  addPcm(samples: Int16Array, atMs: number): void {
    this.mix(samples, samples.length, atMs);
  }

  private addMulaw(mulawBytes: Uint8Array, atMs: number): void {
    if (mulawBytes.length > decoded.length) decoded = new Int16Array(mulawBytes.length);
    decodeMulawInto(mulawBytes, decoded);
    this.mix(decoded, mulawBytes.length, atMs);
  }

  /** Mixes the first `count` of `samples` in at atMs. */
  private mix(samples: Int16Array, count: number, atMs: number): void {
    if (this.fd === null || count === 0) return;
    const offset = Math.max(0, Math.round(atMs * SAMPLES_PER_MS));
    const end = offset + count;
    if (end > this.windowStart + WINDOW_SAMPLES) this.flushBefore(end - WINDOW_SAMPLES + FLUSH_SAMPLES);
    // A frame stamped before the window (late, or far behind the other direction) goes into the file.
    const inFile = Math.max(0, Math.min(count, this.windowStart - offset));
    if (inFile > 0) this.mixIntoFile(samples.subarray(0, inFile), offset);
    for (let i = inFile; i < count; i++) {
      const at = offset + i - this.windowStart;
      const mixed = this.window[at]! + samples[i]!;
      this.window[at] = mixed > 32767 ? 32767 : mixed < -32768 ? -32768 : mixed;
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

  /** Bytes of audio held in memory: the window, whatever the call's length. */
  get memoryBytes(): number {
    return this.window.byteLength;
  }

  /** Writes what is left and the header's sizes, and closes the file. */
  finish(): RecordingFile {
    if (this.fd !== null) {
      this.flushBefore(this.length);
      writeSync(this.fd, wavHeader(this.length * 2, RECORDING_SAMPLE_RATE), 0, WAV_HEADER_BYTES, 0);
      closeSync(this.fd);
      this.fd = null;
    }
    const path = this.path;
    return {
      path,
      bytes: WAV_HEADER_BYTES + this.length * 2,
      durationMs: this.durationMs,
      read: () => readFile(path),
      dispose: () => rm(path, { force: true }),
    };
  }

  /** Moves the window's start to sample `start`, writing what it leaves behind to the file. */
  private flushBefore(start: number): void {
    const count = Math.min(start, this.length) - this.windowStart;
    if (count <= 0) {
      if (start > this.windowStart) this.moveWindow(start);
      return;
    }
    // The samples' own memory (WAV is little-endian; a big-endian host writes a swapped copy).
    const bytes = Buffer.from(this.window.buffer, this.window.byteOffset, count * 2);
    writeSync(
      this.fd!,
      HOST_LITTLE_ENDIAN ? bytes : Buffer.from(bytes).swap16(),
      0,
      count * 2,
      WAV_HEADER_BYTES + this.windowStart * 2,
    );
    this.moveWindow(start);
  }

  private moveWindow(start: number): void {
    const shift = start - this.windowStart;
    if (shift >= WINDOW_SAMPLES) this.window.fill(0);
    else {
      this.window.copyWithin(0, shift);
      this.window.fill(0, WINDOW_SAMPLES - shift);
    }
    this.windowStart = start;
  }

  /** Mixes samples into audio already written to the file, at sample `offset`. */
  private mixIntoFile(samples: Int16Array, offset: number): void {
    const position = WAV_HEADER_BYTES + offset * 2;
    const bytes = Buffer.alloc(samples.length * 2);
    readSync(this.fd!, bytes, 0, bytes.length, position);
    for (let i = 0; i < samples.length; i++) {
      const mixed = bytes.readInt16LE(i * 2) + samples[i]!;
      bytes.writeInt16LE(mixed > 32767 ? 32767 : mixed < -32768 ? -32768 : mixed, i * 2);
    }
    writeSync(this.fd!, bytes, 0, bytes.length, position);
  }
}
