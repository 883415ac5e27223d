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
    const bomb = await zip({
      '[Content_Types].xml': '<Types/>',
      'word/document.xml': Buffer.alloc(MAX_DOCX_EXPANDED_BYTES + 1),
    });
    const error = await extractDocumentText(
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
