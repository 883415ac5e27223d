import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../shared/http/validation-error.ts';
import { DecompressionBudget, DecompressionLimitError } from '../../shared/services/decompression-budget.ts';
import { decodedPdfSize, UnmeasurablePdfError } from '../../shared/services/pdf-streams.ts';
import { extractDocumentText, MAX_PDF_DECODED_BYTES } from '../../shared/services/text-extraction.ts';

/** A one-page PDF whose page content is `content`, stored under `dictionary` (no xref: pdf.js rebuilds it). */
function pdf(content: Buffer, dictionary: string, extra = ''): Buffer {
  return Buffer.concat([
    Buffer.from(
      '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n' +
        '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n' +
        '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R ' +
        '/Resources << /Font << /F1 5 0 R >> >> >> endobj\n' +
        '5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj\n' +
        `4 0 obj << ${dictionary.includes('/Length') ? '' : `/Length ${content.length} `}${dictionary} >>\nstream\n`,
      'latin1',
    ),
    content,
    Buffer.from(`\nendstream\nendobj\n${extra}trailer << /Root 1 0 R /Size 6 >>\n%%EOF\n`, 'latin1'),
  ]);
}

const budget = (maxBytes: number) => new DecompressionBudget(maxBytes);
const text = Buffer.from('BT /F1 12 Tf 72 720 Td (Hello from a compressed page) Tj ET');

describe('decodedPdfSize', () => {
  it('counts what each filter chain decodes to', async () => {
    expect(await decodedPdfSize(pdf(text, ''), budget(1000))).toBe(0);
    expect(await decodedPdfSize(pdf(deflateSync(text), '/Filter /FlateDecode'), budget(1000))).toBe(text.length);
    // ASCIIHex of the deflated text, then Flate: both outputs count.
    const hex = Buffer.from(`${deflateSync(text).toString('hex')}>`);
    expect(await decodedPdfSize(pdf(hex, '/Filter [/AHx /Fl]'), budget(1000))).toBe(
      deflateSync(text).length + text.length,
    );
    // Names written with #xx escapes are the same names for pdf.js.
    expect(await decodedPdfSize(pdf(deflateSync(text), '/Fil#74er /Fl#61teDecode'), budget(1000))).toBe(text.length);
  });

  it('decodes LZW (the PDF reference example), RunLength and ASCII85', async () => {
    const lzw = Buffer.from([0x80, 0x0b, 0x60, 0x50, 0x22, 0x0c, 0x0c, 0x85, 0x01]); // "-----A---B"
    expect(await decodedPdfSize(pdf(lzw, '/Filter /LZWDecode'), budget(1000))).toBe(10);
    const runs = Buffer.from([2, 65, 66, 67, 255, 68, 128]); // "ABC" then 2 × "D"
    expect(await decodedPdfSize(pdf(runs, '/Filter /RunLengthDecode'), budget(1000))).toBe(5);
    expect(await decodedPdfSize(pdf(Buffer.from('87cURD]i,"Ebo80~>'), '/Filter /A85'), budget(1000))).toBe(12);
  });

  it('stops the inflater at the cap: a small stream of zeros inflating past it is refused', async () => {
    const zeros = deflateSync(Buffer.alloc(8 * 1024 * 1024));
    expect(zeros.length).toBeLessThan(10_000);
    const error = await decodedPdfSize(pdf(zeros, '/Filter /FlateDecode'), budget(1024 * 1024)).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(DecompressionLimitError);
    expect((error as DecompressionLimitError).message).toBe('expands to more than 1048576 bytes');
    // At most one zlib chunk (16 KiB) past the cap was ever produced, not the 8 MiB the stream holds.
    expect((error as DecompressionLimitError).producedBytes).toBeLessThanOrEqual(1024 * 1024 + 16 * 1024);
  });

  it('refuses a bomb hidden in a second Flate of a chain, or behind an understated /Length', async () => {
    const inner = deflateSync(Buffer.alloc(4 * 1024 * 1024));
    const nested = deflateSync(inner);
    await expect(
      decodedPdfSize(pdf(nested, '/Filter [/FlateDecode /FlateDecode]'), budget(1024 * 1024)),
    ).rejects.toThrow(DecompressionLimitError);
    // A string holding "<<" that misleads the reading of the dictionary does not hide a zlib stream.
    await expect(
      decodedPdfSize(
        pdf(deflateSync(Buffer.alloc(2 * 1024 * 1024)), '/Filter /FlateDecode /Title (<<)'),
        budget(1024 * 1024),
      ),
    ).rejects.toThrow(DecompressionLimitError);
    // A /Length that understates the data does not end the measurement.
    await expect(
      decodedPdfSize(
        pdf(deflateSync(Buffer.alloc(2 * 1024 * 1024)), '/Length 10 /Filter /FlateDecode'),
        budget(1024 * 1024),
      ),
    ).rejects.toThrow(DecompressionLimitError);
  });

  it('sums every stream of the file against one budget', async () => {
    const half = deflateSync(Buffer.alloc(600 * 1024));
    const second = `6 0 obj << /Length ${half.length} /Filter /FlateDecode >>\nstream\n${half.toString('latin1')}\nendstream endobj\n`;
    await expect(decodedPdfSize(pdf(half, '/Filter /FlateDecode', second), budget(1024 * 1024))).rejects.toThrow(
      DecompressionLimitError,
    );
  });

  it('refuses what it cannot measure: encryption, a filter by reference, a predictor inside a chain', async () => {
    const content = deflateSync(text);
    await expect(
      decodedPdfSize(pdf(content, '/Filter /FlateDecode', '7 0 obj << /Encrypt 8 0 R >> endobj\n'), budget(1000)),
    ).rejects.toThrow(UnmeasurablePdfError);
    await expect(decodedPdfSize(pdf(content, '/Filter 9 0 R'), budget(1000))).rejects.toThrow(UnmeasurablePdfError);
    await expect(
      decodedPdfSize(pdf(content, '/Filter [/Fl /Fl] /DecodeParms [<< /Predictor 12 >> null]'), budget(1000)),
    ).rejects.toThrow(UnmeasurablePdfError);
  });
});

describe('the decompression budget', () => {
  it('has a wall-time bound, checked between streams and chunks (a clock that jumps 6 s a reading)', async () => {
    let clock = 0;
    const slow = new DecompressionBudget(1024 * 1024, 10_000, () => (clock += 6_000));
    const page = deflateSync(text);
    const second = `6 0 obj << /Filter /FlateDecode >>\nstream\n${page.toString('latin1')}\nendstream endobj\n`;
    const error = await decodedPdfSize(pdf(page, '/Filter /FlateDecode', second), slow).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(DecompressionLimitError);
    expect((error as DecompressionLimitError).message).toBe('took more than 10 s to decompress');
  });
});

describe('extractDocumentText with a PDF bomb', () => {
  const upload = (data: Buffer) => ({
    fieldName: 'file',
    fileName: 'bomb.pdf',
    contentType: 'application/pdf',
    data,
  });

  it('reads a compressed page as before', async () => {
    const result = await extractDocumentText(1, upload(pdf(deflateSync(text), '/Filter /FlateDecode')), 'knowledge');
    expect(result.text).toBe('Hello from a compressed page');
  });

  it('is a 422 on the file before pdf.js inflates the stream', async () => {
    const bomb = pdf(deflateSync(Buffer.alloc(MAX_PDF_DECODED_BYTES + 1024 * 1024)), '/Filter /FlateDecode');
    expect(bomb.length).toBeLessThan(100_000);
    const error = await extractDocumentText(1, upload(bomb), 'knowledge').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).items).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'file'],
        msg: `Value error, the PDF expands to more than ${MAX_PDF_DECODED_BYTES} bytes`,
        input: 'bomb.pdf',
        ctx: { error: 'too large' },
      },
    ]);
  });
});
