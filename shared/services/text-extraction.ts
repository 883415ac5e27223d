import { RequestValidationError } from '../http/validation-error.ts';
import { UnsupportedMediaTypeError } from '../domain/errors.ts';
import type { UploadedFile } from '../http/multipart.ts';
import { MAX_KNOWLEDGE_TEXT_CHARS } from '../schemas/bounds.ts';
import { modelFor } from './language-models.ts';
import { ArchiveTooLargeError, expandedSize } from './zip-expansion.ts';
import { DecompressionBudget, DecompressionLimitError } from './decompression-budget.ts';
import { decodedPdfSize, UnmeasurablePdfError } from './pdf-streams.ts';

/**
 * Upload caps. An upload reaches the Lambda base64-encoded inside a proxy event that Lambda caps
 * at 6 MB, so no file cap may exceed about 4.4 MB. `knowledge` text is inlined into the system
 * prompt, hence the small cap; larger documents belong in the agent's knowledge base (chunked and
 * retrieved).
 */
export const MAX_UPLOAD_BYTES = 1 * 1024 * 1024;
export const MAX_SCRIPT_UPLOAD_BYTES = 4 * 1024 * 1024;
/**
 * What a DOCX (a ZIP) may unpack to, counted while inflating, and its entry count: a small upload
 * must not expand to gigabytes in memory. Real documents of the upload caps stay far below.
 */
export const MAX_DOCX_EXPANDED_BYTES = 32 * 1024 * 1024;
export const MAX_DOCX_ENTRIES = 1000;
/** PDF pages read; pdf.js reads every page at once. */
export const MAX_PDF_PAGES = 300;
/**
 * What a PDF's streams may decode to in all, measured before pdf.js reads the file (see
 * pdf-streams.ts): pdf.js holds a decoded stream's chunks and their concatenation at once, so this
 * keeps a document well inside the function's 1,024 MB. Text PDFs of the upload caps decode to a
 * few MB; flate-compressed images count too, and are what comes near this.
 */
export const MAX_PDF_DECODED_BYTES = 64 * 1024 * 1024;
/** Wall time for measuring and reading one document (the API answers within 29 s, and a script then goes to the model). */
export const MAX_EXTRACTION_SECONDS = 10;
export const MAX_SCRIPT_TEXT_CHARS = 50_000;
/** Knowledge text inlined into the prompt (the knowledge box): at most this many characters. */
export { MAX_KNOWLEDGE_TEXT_CHARS } from '../schemas/bounds.ts';

export type Purpose = 'knowledge' | 'script';

const kindOf = (file: UploadedFile): 'pdf' | 'docx' | 'text' | undefined => {
  const name = file.fileName.toLowerCase();
  if (file.contentType === 'application/pdf' || name.endsWith('.pdf')) return 'pdf';
  if (
    name.endsWith('.docx') ||
    file.contentType === 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
  )
    return 'docx';
  if (name.endsWith('.txt') || name.endsWith('.md') || file.contentType.startsWith('text/')) return 'text';
  return undefined;
};

/** A document within the upload cap whose content is over a cap (pages, unpacked size, time). */
class DocumentTooLargeError extends Error {}

/** `work`, or a DocumentTooLargeError once `milliseconds` have passed (then `abandon` stops the work). */
async function withDeadline<T>(work: Promise<T>, milliseconds: number, abandon: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abandon();
      reject(new DocumentTooLargeError(`the document took more than ${milliseconds / 1000} s to read`));
    }, milliseconds);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The plain text of a PDF (pdf.js via unpdf), DOCX (mammoth), TXT or Markdown file. The parsers
 * are imported on the request that needs them: they are most of the function's code, and a cold
 * start for any other authoring request should not load them.
 */
async function textOf(file: UploadedFile): Promise<string> {
  switch (kindOf(file)) {
    case 'pdf': {
      try {
        await decodedPdfSize(file.data, new DecompressionBudget(MAX_PDF_DECODED_BYTES, MAX_EXTRACTION_SECONDS * 1000));
      } catch (error) {
        if (error instanceof DecompressionLimitError) throw new DocumentTooLargeError(`the PDF ${error.message}`);
        throw error;
      }
      const { extractText, getDocumentProxy } = await import('unpdf');
      const document = await getDocumentProxy(new Uint8Array(file.data));
      if (document.numPages > MAX_PDF_PAGES)
        throw new DocumentTooLargeError(`the PDF has ${document.numPages} pages; at most ${MAX_PDF_PAGES}`);
      // pdf.js works page by page between awaits, so destroying the document stops it at the deadline.
      return withDeadline(
        extractText(document, { mergePages: true }).then((extracted) => extracted.text),
        MAX_EXTRACTION_SECONDS * 1000,
        () => void document.destroy(),
      );
    }
    case 'docx': {
      try {
        expandedSize(file.data, {
          maxBytes: MAX_DOCX_EXPANDED_BYTES,
          maxEntries: MAX_DOCX_ENTRIES,
          maxMilliseconds: MAX_EXTRACTION_SECONDS * 1000,
        });
      } catch (error) {
        if (error instanceof ArchiveTooLargeError) throw new DocumentTooLargeError(error.message);
        throw error;
      }
      const { default: mammoth } = await import('mammoth');
      return (await mammoth.extractRawText({ buffer: file.data })).value;
    }
    case 'text':
      return file.data.toString('utf8');
    default:
      throw new UnsupportedMediaTypeError(
        `Unsupported file type '${file.contentType}' (${file.fileName}): upload PDF, DOCX, TXT or MD`,
      );
  }
}

export async function extractDocumentText(orgId: number, file: UploadedFile | undefined, purpose: Purpose) {
  if (!file)
    throw new RequestValidationError([{ type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null }]);
  let text: string;
  try {
    text = (await textOf(file))
      .replace(/\r\n/g, '\n')
      .replace(/[ \t]+\n/g, '\n')
      .trim();
  } catch (error) {
    if (error instanceof UnsupportedMediaTypeError) throw error;
    if (error instanceof UnmeasurablePdfError) {
      throw new RequestValidationError([
        {
          type: 'value_error',
          loc: ['body', 'file'],
          msg: `Value error, ${error.message}`,
          input: file.fileName,
          ctx: { error: 'unsupported PDF' },
        },
      ]);
    }
    if (error instanceof DocumentTooLargeError) {
      throw new RequestValidationError([
        {
          type: 'value_error',
          loc: ['body', 'file'],
          msg: `Value error, ${error.message}`,
          input: file.fileName,
          ctx: { error: 'too large' },
        },
      ]);
    }
    throw new RequestValidationError([
      {
        type: 'value_error',
        loc: ['body', 'file'],
        msg: `Value error, the file could not be read: ${(error as Error).message}`,
        input: file.fileName,
        ctx: { error: 'unreadable' },
      },
    ]);
  }
  const cap = purpose === 'script' ? MAX_SCRIPT_TEXT_CHARS : MAX_KNOWLEDGE_TEXT_CHARS;
  if (text.length > cap) {
    throw new RequestValidationError([
      {
        type: 'value_error',
        loc: ['body', 'file'],
        msg: `Value error, the text has ${text.length} characters; at most ${cap} for purpose=${purpose}`,
        input: file.fileName,
        ctx: { error: 'too long' },
      },
    ]);
  }
  // A script is distilled by the model (cleaned into one utterance per line); knowledge is kept as is.
  // The organization's own model when it set a key, as translate and analyze-script use it.
  if (purpose === 'script')
    text = await (
      await modelFor(orgId)
    ).model.complete({ system: 'Clean up this call script: one utterance per line.', prompt: text });
  return { text, characters: text.length, purpose, file_name: file.fileName, content_type: file.contentType };
}
