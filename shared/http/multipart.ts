import busboy from 'busboy';
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

/**
 * Parses a multipart/form-data body (busboy) into fields and files. A file over `maxFileBytes`
 * is a 413 as soon as it crosses the limit; a body that is not multipart is a 422 on `body`.
 */
export function parseMultipart(event: APIGatewayProxyEvent, maxFileBytes: number): Promise<{ fields: Record<string, string>; files: UploadedFile[] }> {
  const contentType = headerValue(event, 'content-type') ?? '';
  if (!contentType.toLowerCase().startsWith('multipart/form-data')) {
    return Promise.reject(
      new RequestValidationError([{ type: 'value_error', loc: ['body'], msg: 'Value error, the body must be multipart/form-data with a `file` part', input: contentType, ctx: { error: 'not multipart' } }]),
    );
  }
  const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    const files: UploadedFile[] = [];
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { 'content-type': contentType }, limits: { fileSize: maxFileBytes, files: 1, fields: 20 } });
    } catch (error) {
      reject(new RequestValidationError([{ type: 'value_error', loc: ['body'], msg: `Value error, ${(error as Error).message}`, input: null, ctx: { error: 'bad multipart' } }]));
      return;
    }
    parser.on('field', (name, value) => (fields[name] = value));
    parser.on('file', (fieldName, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => reject(new PayloadTooLargeError(`The file is larger than ${maxFileBytes} bytes`)));
      stream.on('end', () => files.push({ fieldName, fileName: info.filename ?? 'upload', contentType: info.mimeType, data: Buffer.concat(chunks) }));
    });
    parser.on('error', (error: Error) => reject(new RequestValidationError([{ type: 'value_error', loc: ['body'], msg: `Value error, ${error.message}`, input: null, ctx: { error: 'bad multipart' } }])));
    parser.on('close', () => resolve({ fields, files }));
    parser.end(body);
  });
}
