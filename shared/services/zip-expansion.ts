import { CorruptCompressedDataError, DecompressionBudget, DecompressionLimitError } from './decompression-budget.ts';

/**
 * Measures what a ZIP archive (a DOCX) expands to, inflating each entry through the request's
 * decompression budget (zlib's `maxOutputLength`) so that no more than the budget is ever held in
 * memory: a small upload that
 * unpacks to gigabytes (a "zip bomb") is refused before any parser (mammoth) unpacks it. The sizes
 * an archive declares are not trusted; the bytes actually inflated are counted.
 */
export class ArchiveTooLargeError extends Error {}
export class MalformedArchiveError extends Error {}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

function endOfCentralDirectory(zip: Buffer): number {
  // The record is 22 bytes plus a comment of at most 65,535 bytes, at the very end.
  for (let offset = zip.length - 22; offset >= Math.max(0, zip.length - 22 - 65_535); offset -= 1) {
    if (zip.readUInt32LE(offset) === END_OF_CENTRAL_DIRECTORY) return offset;
  }
  throw new MalformedArchiveError('not a ZIP archive (no end of central directory)');
}

/** Total bytes the archive's entries inflate to; throws ArchiveTooLargeError past `maxBytes` or `maxEntries`. */
export function expandedSize(
  zip: Buffer,
  limits: { maxBytes: number; maxEntries: number; maxMilliseconds?: number },
): number {
  if (zip.length < 22) throw new MalformedArchiveError('not a ZIP archive (too short)');
  const end = endOfCentralDirectory(zip);
  const entries = zip.readUInt16LE(end + 10);
  if (entries > limits.maxEntries)
    throw new ArchiveTooLargeError(`the archive has ${entries} entries; at most ${limits.maxEntries}`);
  let cursor = zip.readUInt32LE(end + 16);
  const budget = new DecompressionBudget(limits.maxBytes, limits.maxMilliseconds);
  for (let index = 0; index < entries; index += 1) {
    if (cursor + 46 > zip.length || zip.readUInt32LE(cursor) !== CENTRAL_DIRECTORY_ENTRY)
      throw new MalformedArchiveError('corrupt central directory');
    const method = zip.readUInt16LE(cursor + 10);
    const compressedSize = zip.readUInt32LE(cursor + 20);
    const localHeader = zip.readUInt32LE(cursor + 42);
    cursor += 46 + zip.readUInt16LE(cursor + 28) + zip.readUInt16LE(cursor + 30) + zip.readUInt16LE(cursor + 32);

    if (localHeader + 30 > zip.length || zip.readUInt32LE(localHeader) !== LOCAL_FILE_HEADER)
      throw new MalformedArchiveError('corrupt local file header');
    const dataStart = localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
    const data = zip.subarray(dataStart, dataStart + compressedSize);
    try {
      if (method === STORED) budget.spend(data.length);
      else if (method === DEFLATED) budget.inflateRaw(data);
      else throw new MalformedArchiveError(`unsupported compression method ${method}`);
    } catch (error) {
      if (error instanceof DecompressionLimitError) throw new ArchiveTooLargeError(`the archive ${error.message}`);
      if (error instanceof CorruptCompressedDataError)
        throw new MalformedArchiveError(`corrupt entry (${error.message})`);
      throw error;
    }
  }
  return budget.producedBytes;
}
