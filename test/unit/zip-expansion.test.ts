import { deflateRawSync } from 'node:zlib';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../shared/http/validation-error.ts';
import { extractDocumentText, MAX_DOCX_EXPANDED_BYTES } from '../../shared/services/text-extraction.ts';
import { ArchiveTooLargeError, expandedSize, MalformedArchiveError } from '../../shared/services/zip-expansion.ts';

async function zip(
  entries: Record<string, string | Buffer>,
  compression: 'DEFLATE' | 'STORE' = 'DEFLATE',
): Promise<Buffer> {
  const archive = new JSZip();
  for (const [name, content] of Object.entries(entries)) archive.file(name, content);
  return archive.generateAsync({ type: 'nodebuffer', compression });
}

/**
 * A deflated archive written with zlib (native) rather than JSZip's JavaScript deflate, which takes
 * seconds for tens of MiB on a busy machine. CRCs are left 0: the size check reads none.
 */
function nativeZip(entries: Record<string, Buffer | string>): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(entries)) {
    const raw = Buffer.from(content);
    const data = deflateRawSync(raw);
    const fileName = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(raw.length, 24);
    entry.writeUInt16LE(fileName.length, 28);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    central.push(entry, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(entries).length, 8);
  end.writeUInt16LE(Object.keys(entries).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const limits = { maxBytes: 1_000_000, maxEntries: 10 };

describe('expandedSize', () => {
  it('counts what the entries inflate to, deflated or stored', async () => {
    expect(expandedSize(await zip({ 'a.xml': 'x'.repeat(5000), 'b.txt': 'hello' }), limits)).toBe(5005);
    expect(expandedSize(await zip({ 'a.xml': 'x'.repeat(5000) }, 'STORE'), limits)).toBe(5000);
  });

  it('refuses a small archive that would unpack past the budget, without unpacking it', async () => {
    const bomb = await zip({ 'word/document.xml': Buffer.alloc(5_000_000) });
    expect(bomb.length).toBeLessThan(20_000);
    expect(() => expandedSize(bomb, limits)).toThrow(ArchiveTooLargeError);
  });

  it('refuses too many entries and malformed archives', async () => {
    const many = await zip(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`f${i}`, 'x'])));
    expect(() => expandedSize(many, limits)).toThrow(ArchiveTooLargeError);
    expect(() => expandedSize(Buffer.from('PK\u0003\u0004 not really a zip'), limits)).toThrow(MalformedArchiveError);
    const good = await zip({ 'a.xml': 'x'.repeat(5000) });
    expect(() => expandedSize(good.subarray(0, good.length - 30), limits)).toThrow(MalformedArchiveError);
  });
});

describe('extractDocumentText with a DOCX bomb', () => {
  it('is a 422 on the file, not gigabytes of memory', async () => {
    const bomb = nativeZip({
      '[Content_Types].xml': '<Types/>',
      'word/document.xml': Buffer.alloc(MAX_DOCX_EXPANDED_BYTES + 1),
    });
    expect(bomb.length).toBeLessThan(100_000);
    const error = await extractDocumentText(
      1,
      { fieldName: 'file', fileName: 'bomb.docx', contentType: 'application/octet-stream', data: bomb },
      'knowledge',
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).items[0]).toMatchObject({
      type: 'value_error',
      loc: ['body', 'file'],
      msg: `Value error, the archive expands to more than ${MAX_DOCX_EXPANDED_BYTES} bytes`,
    });
  });
});
