import type busboy from 'busboy';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { PayloadTooLargeError } from '../domain/errors.ts';
import { headerValue } from './request.ts';
import { RequestValidationError } from './validation-error.ts';

export interface UploadedFile {
  fieldName: string;
  fileName: string;
  contentType: string;
  data: Buffer;
}

function malformed(error: unknown): RequestValidationError {
  const reason = error instanceof Error ? error.message : String(error);
  return new RequestValidationError([
    {
      type: 'value_error',
      loc: ['body'],
      msg: `Value error, malformed multipart/form-data body: ${reason}`,
      input: null,
      ctx: { error: reason },
    },
  ]);
}

/**
 * Parses a multipart/form-data body (busboy, loaded with the first upload) into fields and files.
 * A file over `maxFileBytes` is a 413 as soon as it crosses the limit; a body that is not
 * multipart is a 422 on `body`.
 */
export async function parseMultipart(
  event: APIGatewayProxyEvent,
  maxFileBytes: number,
): Promise<{ fields: Record<string, string>; files: UploadedFile[] }> {
  const contentType = headerValue(event, 'content-type') ?? '';
  if (!contentType.toLowerCase().startsWith('multipart/form-data')) {
    throw new RequestValidationError([
      {
        type: 'value_error',
        loc: ['body'],
        msg: 'Value error, the body must be multipart/form-data with a `file` part',
        input: contentType,
        ctx: { error: 'not multipart' },
      },
    ]);
  }
  const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
  const { default: busboy } = await import('busboy');
  return new Promise((resolve, reject) => {
    // No prototype: a field named `__proto__` or `constructor` is just a field.
    const fields: Record<string, string> = Object.create(null);
    const files: UploadedFile[] = [];
    // busboy reports a malformed or truncated body on the parser *and* on the open part's stream;
    // every stream gets a listener (an unhandled stream error would end the process) and the
    // first outcome wins.
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      reject(error instanceof PayloadTooLargeError ? error : malformed(error));
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: { fileSize: maxFileBytes, files: 1, fields: 20 },
      });
    } catch (error) {
      fail(error);
      return;
    }
    parser.on('field', (name, value) => (fields[name] = value));
    parser.on('file', (fieldName, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        fail(new PayloadTooLargeError(`The file is larger than ${maxFileBytes} bytes`));
        stream.resume();
      });
      stream.on('error', fail);
      stream.on('end', () =>
        files.push({
          fieldName,
          fileName: info.filename ?? 'upload',
          contentType: info.mimeType,
          data: Buffer.concat(chunks),
        }),
      );
    });
    parser.on('error', fail);
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      resolve({ fields, files });
    });
    parser.end(body);
  });
}
