import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  LanguageModelError,
  LanguageModelUnavailableError,
  organizationModel,
  platformModel,
  remoteModel,
} from '../../shared/ai/language-model.ts';
import { readScript, SCRIPT_READING } from '../../shared/ai/script-reading.ts';
import { errorToResult } from '../../shared/http/errors.ts';
import { createGuardedFetch, type Resolver } from '../../shared/net/guarded-fetch.ts';
import { startFakeOpenAi } from '../../local/fakes/openai-compatible.ts';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** A chat completion whose message content is `content` (a provider answering that). */
const completion = (content: string) =>
  JSON.stringify({
    id: 'c1',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
  });

const SOURCES = {
  script: 'Good morning, this is Smile Clinic.\nWhat is your name?',
  website: null,
  companyName: '',
  language: 'en',
};

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

describe('structured answers (script reading)', () => {
  it('sends the JSON schema as response_format and returns the validated answer', async () => {
    const fake = await startFakeOpenAi({ apiKey: 'sk-local' });
    stops.push(fake.stop);
    const model = remoteModel({ apiUrl: fake.url, apiKey: 'sk-local', model: 'fake-chat' });
    const reading = await readScript(model, SOURCES);
    expect(reading).toMatchObject({
      company_name: 'Smile Clinic',
      call_flow: { greeting: 'Good morning, this is Smile Clinic.', steps: ['What is your name?'] },
      website_facts: null,
    });
    const sent = fake.chatRequests[0] as unknown as {
      response_format: { type: string; json_schema: { name: string; strict: boolean; schema: object } };
    };
    expect(sent.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: SCRIPT_READING, strict: true, schema: { type: 'object', additionalProperties: false } },
    });
  });

  it.each([
    ['text that is not JSON', 'Sure! Here is the analysis: greeting is hello', /returned text that is not JSON/],
    [
      'JSON of another shape',
      '{"greeting":"hello"}',
      /returned a script_analysis that does not match its schema \(company_name/,
    ],
    [
      'a wrong type inside',
      JSON.stringify({
        company_name: null,
        script_language: 'en',
        call_flow: { greeting: 1, steps: [], objections: [], mandatory_phrases: [], data_to_collect: [] },
        script_facts: { offer: null, prices: [], hours: null, address: null, faq: [] },
        website_facts: null,
      }),
      /does not match its schema \(call_flow\.greeting/,
    ],
  ])('answers 502 naming the upstream on %s', async (_case, content, message) => {
    const apiUrl = await upstream(200, completion(content));
    const model = remoteModel({ apiUrl, apiKey: 'k', model: 'm', upstream: 'The platform language model' });
    const error = await readScript(model, SOURCES).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(LanguageModelError);
    expect((error as Error).message).toMatch(/^The platform language model /);
    expect((error as Error).message).toMatch(message);
    expect(errorToResult(error)).toEqual({ status: 502, body: { detail: (error as Error).message } });
  });

  it('answers 502 when the provider fails', async () => {
    const fake = await startFakeOpenAi({ apiKey: 'sk-local', failFromRequest: 1 });
    stops.push(fake.stop);
    const model = remoteModel({
      apiUrl: fake.url,
      apiKey: 'sk-local',
      model: 'm',
      upstream: 'The platform language model',
    });
    const error = await readScript(model, SOURCES).catch((thrown: unknown) => thrown);
    expect((error as Error).message).toMatch(/^The platform language model answered 500/);
    expect(errorToResult(error).status).toBe(502);
  });
});

describe("the organization's model goes through the SSRF guard", () => {
  /** Names resolve through this stub: nothing is looked up, and only loopback is ever connected to. */
  const resolve: Resolver = async (hostname) =>
    ({
      'model.test': [{ address: '127.0.0.1', family: 4 }],
      'internal.test': [{ address: '10.0.0.7', family: 4 }],
      'metadata.test': [{ address: '169.254.169.254', family: 4 }],
    })[hostname] ?? [];

  it('reaches a model whose name resolves to an allowed address', async () => {
    const fake = await startFakeOpenAi({ apiKey: 'sk-org' });
    stops.push(fake.stop);
    const port = new URL(fake.url).port;
    const model = organizationModel(
      { api_url: `http://model.test:${port}/v1`, model: 'own' },
      'sk-org',
      createGuardedFetch({ allowLoopback: true, resolve }),
    );
    expect((await readScript(model, SOURCES)).company_name).toBe('Smile Clinic');
    expect(fake.chatRequests).toHaveLength(1);
  });

  it.each([
    [
      'a private address',
      'http://internal.test/v1',
      /internal\.test resolves to 10\.0\.0\.7, which is not a public address \(private\)/,
    ],
    ['the metadata address', 'http://metadata.test/v1', /not a public address \(link-local\)/],
    ['a private literal', 'http://10.1.2.3/v1', /10\.1\.2\.3 is not a public address/],
    [
      'loopback without the allowance',
      'https://model.test/v1',
      /127\.0\.0\.1, which is not a public address \(loopback\)/,
    ],
  ])('refuses %s before connecting: 502 naming the organization model', async (_case, apiUrl, reason) => {
    const model = organizationModel(
      { api_url: apiUrl, model: 'own' },
      'sk-org',
      createGuardedFetch({ allowLoopback: !apiUrl.startsWith('https:'), resolve }),
    );
    const error = await readScript(model, SOURCES).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(LanguageModelError);
    expect((error as Error).message).toMatch(/^The organization's language model could not be used/);
    expect((error as Error).message).toMatch(reason);
    expect(errorToResult(error).status).toBe(502);
  });
});
