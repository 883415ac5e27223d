import { constants, createInflate, inflateRawSync } from 'node:zlib';

/**
 * One budget for everything a request decompresses (a DOCX's entries, a PDF's streams): the bytes
 * actually produced are counted as they come out of the inflater, never the sizes a file declares,
 * and the inflater itself is stopped at the cap (zlib's `maxOutputLength`, or a streaming inflate
 * destroyed at the cap), so no more than the budget is ever held in memory. A deadline bounds the
 * wall time of the whole measurement. Callers turn `DecompressionLimitError` into a 422.
 */
export class DecompressionLimitError extends Error {
  constructor(
    message: string,
    /** Bytes the inflaters had produced when they were stopped (at most the cap plus one chunk). */
    readonly producedBytes: number,
  ) {
    super(message);
    this.name = 'DecompressionLimitError';
  }
}

/** zlib's own refusal of corrupt input (not a limit): the caller decides what a corrupt entry means. */
export class CorruptCompressedDataError extends Error {}

export class DecompressionBudget {
  private produced = 0;
  private readonly deadline: number;

  constructor(
    readonly maxBytes: number,
    readonly maxMilliseconds = Number.POSITIVE_INFINITY,
    private readonly now: () => number = Date.now,
  ) {
    this.deadline = now() + maxMilliseconds;
  }

  /** Bytes produced so far. */
  get producedBytes(): number {
    return this.produced;
  }

  get remaining(): number {
    return Math.max(0, this.maxBytes - this.produced);
  }

  /** Counts `bytes` more output; throws past the cap or the deadline. */
  spend(bytes: number): void {
    this.produced += bytes;
    if (this.produced > this.maxBytes) throw this.overCap();
    this.checkDeadline();
  }

  private overCap(): DecompressionLimitError {
    return new DecompressionLimitError(`expands to more than ${this.maxBytes} bytes`, this.produced);
  }

  checkDeadline(): void {
    if (this.now() > this.deadline)
      throw new DecompressionLimitError(`took more than ${this.maxMilliseconds / 1000} s to decompress`, this.produced);
  }

  /** Raw DEFLATE (a ZIP entry) with known bounds: inflated synchronously, never past the budget. */
  inflateRaw(data: Uint8Array): Buffer {
    let output: Buffer;
    try {
      output = inflateRawSync(data, { maxOutputLength: this.remaining + 1 });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
        this.produced = this.maxBytes + 1;
        throw this.overCap();
      }
      throw new CorruptCompressedDataError((error as Error).message);
    }
    this.spend(output.length);
    return output;
  }

  /**
   * A zlib stream (RFC 1950, as a PDF's FlateDecode) that ends wherever its data says it ends:
   * trailing bytes are ignored, a truncated or corrupt stream yields what inflated before the
   * fault (as pdf.js keeps it), every chunk is counted as it comes out and the inflater is
   * destroyed at the cap. The output is kept only when `keep` (another filter reads it).
   */
  async inflate(data: Uint8Array, keep: boolean): Promise<Buffer> {
    const inflater = createInflate({ finishFlush: constants.Z_SYNC_FLUSH });
    const chunks: Buffer[] = [];
    return new Promise<Buffer>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        inflater.destroy();
        outcome();
      };
      inflater.on('data', (chunk: Buffer) => {
        try {
          this.spend(chunk.length);
          if (keep) chunks.push(chunk);
        } catch (error) {
          settle(() => reject(error as Error));
        }
      });
      // A fault after some output is the end of the stream, as for pdf.js.
      inflater.on('error', () => settle(() => resolve(Buffer.concat(chunks))));
      inflater.on('end', () => settle(() => resolve(Buffer.concat(chunks))));
      inflater.end(data);
    });
  }
}
