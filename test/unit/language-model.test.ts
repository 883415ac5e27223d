import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  LanguageModelError,
  LanguageModelUnavailableError,
  platformModel,
  remoteModel,
} from '../../shared/ai/language-model.ts';
import { errorToResult } from '../../shared/http/errors.ts';
import { startFakeOpenAi } from '../../local/fakes/openai-compatible.ts';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** A local server answering every request with `status` and `body` (a misbehaving provider). */
async function upstream(status: number, body: string): Promise<string> {
  const server: Server = createServer((_request, response) =>
    response.writeHead(status, { 'Content-Type': 'application/json' }).end(body),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stops.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

describe('language model (openai client)', () => {
  it('completes through the OpenAI-compatible API', async () => {
    const fake = await startFakeOpenAi({ apiKey: 'sk-local' });
    stops.push(fake.stop);
    const model = remoteModel({ apiUrl: fake.url, apiKey: 'sk-local', model: 'fake-chat' });
    expect(await model.complete({ system: 'Translate.\nTarget language: Polish', prompt: 'Hello {{name}}' })).toBe(
      '[Polish] Hello {{name}}',
    );
    expect(fake.chatRequests[0]).toMatchObject({
      model: 'fake-chat',
      messages: [{ role: 'system' }, { role: 'user', content: 'Hello {{name}}' }],
    });
  });

  it('answers 503 naming the settings when the platform model is not configured, never canned text', async () => {
    delete process.env.LLM_API_URL;
    const error = await platformModel().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(LanguageModelUnavailableError);
    const result = errorToResult(error);
    expect(result.status).toBe(503);
    expect(result.body).toEqual({
      detail: expect.stringMatching(/LLM_API_URL unset.*llmApiKey field of the VoiceProviders secret/),
    });
  });

  it.each([
    [
      'an error status',
      500,
      '{"error":{"message":"boom","type":"server_error"}}',
      /^The platform language model answered 500/,
    ],
    [
      'a wrong key',
      401,
      '{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error"}}',
      /^The platform language model answered 401/,
    ],
    ['garbage', 200, '<html>not json</html>', /^The platform language model (could not be used|returned no text)/],
    ['no choices', 200, '{"id":"x","choices":[]}', /^The platform language model returned no text/],
  ])('answers 502 naming the upstream on %s', async (_case, status, body, message) => {
    const apiUrl = await upstream(status, body);
    const model = remoteModel({ apiUrl, apiKey: 'sk-test', model: 'm', upstream: 'The platform language model' });
    const error = await model.complete({ system: 's', prompt: 'p' }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(LanguageModelError);
    expect((error as Error).message).toMatch(message);
    expect(errorToResult(error).status).toBe(502);
  });

  it('answers 502 when the provider cannot be reached', async () => {
    const apiUrl = await upstream(200, '{}');
    await stops.pop()!(); // closed: nothing listens there any more
    const error = await remoteModel({ apiUrl, apiKey: 'k', model: 'm', upstream: "The organization's language model" })
      .complete({ system: 's', prompt: 'p' })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(LanguageModelError);
    expect((error as Error).message).toMatch(/^The organization's language model could not be used/);
  });
});
