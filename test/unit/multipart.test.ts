import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { PayloadTooLargeError } from '../../shared/domain/errors.ts';
import { parseMultipart } from '../../shared/http/multipart.ts';
import { RequestValidationError } from '../../shared/http/validation-error.ts';

const BOUNDARY = 'xBOUNDARYx';

function event(body: Buffer, contentType = `multipart/form-data; boundary=${BOUNDARY}`): APIGatewayProxyEvent {
  return {
    headers: { 'Content-Type': contentType },
    body: body.toString('base64'),
    isBase64Encoded: true,
  } as unknown as APIGatewayProxyEvent;
}

const part = (content: string) =>
  Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n${content}`,
  );
const complete = (content: string) => Buffer.concat([part(content), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('expected a rejection'),
    (error: unknown) => error,
  );
}

describe('parseMultipart', () => {
  it('reads a well-formed upload', async () => {
    const { files } = await parseMultipart(event(complete('hello')), 1000);
    expect(files).toMatchObject([{ fieldName: 'file', fileName: 'a.txt', contentType: 'text/plain' }]);
    expect(files[0]!.data.toString()).toBe('hello');
  });

  it.each([
    ['truncated inside a part', part('hello, no closing boundary')],
    ['truncated inside the part headers', Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-da`)],
    ['only a preamble', Buffer.from('not multipart at all')],
    ['empty', Buffer.alloc(0)],
  ])('a body %s is a 422 on body, not a crash', async (_name, body) => {
    const error = await failure(parseMultipart(event(body), 1000));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).items[0]).toMatchObject({ type: 'value_error', loc: ['body'] });
  });

  it('a content type without a boundary is a 422', async () => {
    const error = await failure(parseMultipart(event(complete('x'), 'multipart/form-data'), 1000));
    expect((error as RequestValidationError).items[0]).toMatchObject({ type: 'value_error', loc: ['body'] });
  });

  it('a file over the cap is a 413, also when the body is truncated after it', async () => {
    expect(await failure(parseMultipart(event(complete('x'.repeat(2000))), 1000))).toBeInstanceOf(PayloadTooLargeError);
    expect(await failure(parseMultipart(event(part('x'.repeat(2000))), 1000))).toBeInstanceOf(PayloadTooLargeError);
  });
});
