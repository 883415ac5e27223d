import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { pdfSource } from '../support/documents.ts';

const api = apiClient();
let org: TestOrganization;

beforeAll(async () => {
  org = await newOrganization('Authoring');
});

const upload = async (file: Blob, name: string, purpose?: string) => {
  const form = new FormData();
  form.append('file', file, name);
  const response = await fetch(`${api.baseUrl}/agent-templates/extract-text${purpose ? `?purpose=${purpose}` : ''}`, {
    method: 'POST',
    headers: { 'X-API-Key': org.key },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};

/** A one-page PDF whose text is `text` (Helvetica, one line). */
function pdfWith(text: string): Blob {
  return new Blob([pdfSource(text)], { type: 'application/pdf' });
}

/** A minimal DOCX (Office Open XML) with one paragraph. */
async function docxWith(text: string): Promise<Blob> {
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  zip.file(
    'word/document.xml',
    `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>`,
  );
  return new Blob([await zip.generateAsync({ type: 'uint8array' })], {
    type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  });
}

describe('agent templates', () => {
  it('lists the catalogue and creates an agent from a template, with or without the model', async () => {
    const catalogue = await api.request('GET', '/agent-templates', { key: org.key });
    expect(catalogue.body.items.length).toBeGreaterThanOrEqual(5);
    const dental = catalogue.body.items.find((template: { id: string }) => template.id === 'dental-reminders');
    expect(dental).toMatchObject({ languages: ['en', 'pl'] });
    expect(dental.variables[0]).toMatchObject({ name: 'clinic_name', required: true });
    // Paginated like every list.
    const count = catalogue.body.total_count as number;
    expect(catalogue.body).toMatchObject({ page: 1, limit: 20, total_pages: 1 });
    const second = await api.request('GET', '/agent-templates?page=2&limit=2', { key: org.key });
    expect(second.body).toMatchObject({ page: 2, limit: 2, total_count: count, total_pages: Math.ceil(count / 2) });
    expect(second.body.items).toEqual(catalogue.body.items.slice(2, 4));

    const plain = await api.request('POST', '/agents/from-template', {
      key: org.key,
      body: {
        template_id: 'dental-reminders',
        variables: { clinic_name: 'Smile' },
        language: 'en',
        agent_name: 'Smile reminders',
      },
    });
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({
      name: 'Smile reminders',
      workflow_definition: { greeting: 'Hello, this is Smile calling about your visit tomorrow.' },
      call_disposition_codes: { confirmed: 'Visit confirmed' },
    });

    const generated = await api.request('POST', '/agents/from-template', {
      key: org.key,
      body: {
        template_id: 'real-estate-leads',
        variables: { agency_name: 'Homes', listing: 'the flat on Main Street' },
        language: 'en',
        agent_name: 'Leads',
        generate_with_ai: true,
      },
    });
    if (needsLocalStack) {
      // A deployed stack whose platform model is not configured says what to configure.
      expect(generated.status).toBe(503);
      expect(generated.body.detail).toMatch(/VoiceProviders secret/);
    } else {
      expect(generated.body.workflow_definition.steps).toEqual([
        'Could you tell me about budget?',
        'Could you tell me about preferred district?',
        'Could you tell me about timeline to buy?',
      ]);
    }

    const missing = await api.request('POST', '/agents/from-template', {
      key: org.key,
      body: { template_id: 'payment-reminder', variables: { company_name: 'X' }, language: 'en', agent_name: 'Y' },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.detail.map((item: { loc: unknown[] }) => item.loc)).toEqual([
      ['body', 'variables', 'invoice_number'],
      ['body', 'variables', 'amount'],
    ]);
    expect(
      (
        await api.request('POST', '/agents/from-template', {
          key: org.key,
          body: { template_id: 'dental-reminders', variables: { clinic_name: 'S' }, language: 'fr', agent_name: 'Z' },
        })
      ).status,
    ).toBe(422);
    expect(
      (
        await api.request('POST', '/agents/from-template', {
          key: org.key,
          body: { template_id: 'nope', language: 'en', agent_name: 'Z' },
        })
      ).status,
    ).toBe(404);
  });

  it.skipIf(needsLocalStack)(
    'translates and cleans up scripts with the platform model (the local fake), or with the organization key once set (never returned)',
    async () => {
      const platform = await api.request('POST', '/agents/translate-prompt', {
        key: org.key,
        body: { text: 'Hello {{name}}', target_language: 'Polish', context: 'greeting' },
      });
      expect(platform.body).toEqual({
        translated_text: '[Polish] Hello {{name}}',
        target_language: 'Polish',
        model: 'platform',
      });
      // The organization's own key: here the local fake's, which checks it.
      const { LLM_API_URL: apiUrl, LLM_API_KEY: apiKey } = inject('stackEnv');
      const wrong = await api.request('PUT', '/model-key', {
        key: org.key,
        body: { api_key: 'sk-wrong-123456789', api_url: apiUrl, model: 'own-model' },
      });
      expect(wrong.body).toMatchObject({ configured: true, key_last4: '6789' });
      expect(wrong.text).not.toContain('sk-wrong');
      const refused = await api.request('POST', '/agents/translate-prompt', {
        key: org.key,
        body: { text: 'Hi', target_language: 'German' },
      });
      expect(refused.status).toBe(502);
      expect(refused.body.detail).toMatch(/^The organization's language model answered 401/);
      // extract-text's clean-up of a script goes to the same model: the wrong key's 401.
      const script = await upload(new Blob(['Hello   there'], { type: 'text/plain' }), 'script.txt', 'script');
      expect(script.status).toBe(502);
      expect(script.body.detail).toMatch(/^The organization's language model answered 401/);
      await api.request('PUT', '/model-key', {
        key: org.key,
        body: { api_key: apiKey, api_url: apiUrl, model: 'own-model' },
      });
      const own = await api.request('POST', '/agents/translate-prompt', {
        key: org.key,
        body: { text: 'Hi', target_language: 'German' },
      });
      expect(own.body).toEqual({ translated_text: '[German] Hi', target_language: 'German', model: 'organization' });
      expect((await api.request('DELETE', '/model-key', { key: org.key })).status).toBe(204);
      expect((await api.request('GET', '/model-key', { key: org.key })).body.configured).toBe(false);
    },
  );
});

describe('script analysis', () => {
  let site: ReturnType<typeof createServer>;
  let siteUrl: string;
  /** An OpenAI-compatible API of the organization's own that answers `content` (or fails with 500). */
  let ownModel: ReturnType<typeof createServer>;
  let ownModelUrl: string;
  let ownAnswer: { status: number; content: string } = { status: 200, content: '' };
  beforeAll(async () => {
    site = createServer((_request, response) => {
      response
        .writeHead(200, { 'Content-Type': 'text/html' })
        .end(
          '<html><title>Smile Clinic</title><body><p>Check-up 250 PLN</p><p>Mon-Fri 8-16</p><p>ul. Prosta 5, Warszawa</p><p>Do you treat children?</p></body></html>',
        );
    });
    ownModel = createServer((request, response) => {
      request.resume();
      response.writeHead(ownAnswer.status, { 'Content-Type': 'application/json' }).end(
        ownAnswer.status === 200
          ? JSON.stringify({
              id: 'c1',
              object: 'chat.completion',
              created: 0,
              model: 'own',
              choices: [
                { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: ownAnswer.content } },
              ],
            })
          : '{"error":{"message":"overloaded","type":"server_error"}}',
      );
    });
    for (const server of [site, ownModel]) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    ownModelUrl = `http://127.0.0.1:${(ownModel.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    for (const server of [site, ownModel]) await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const script =
    'Good morning, Smile Clinic here.\nThis call is recorded.\n- What is your name?\nIf they say they are busy: Offer to call back tomorrow.\nA check-up costs 200 PLN.';

  it('the model reads the call flow from the script and facts from the website, script first, listing conflicts; then builds an agent', async () => {
    const analysis = await api.request('POST', '/agent-templates/analyze-script', {
      key: org.key,
      body: { script_text: script, url: siteUrl, company_name: 'Smile', language: 'en' },
    });
    if (needsLocalStack) {
      // A deployed stack whose platform model is not configured says what to configure, never a canned analysis.
      expect(analysis.status).toBe(503);
      expect(analysis.body.detail).toMatch(/VoiceProviders secret/);
      return;
    }
    expect(analysis.status).toBe(200);
    // What the local fake model read (local/fakes/script-reader.ts), with the sources and the script winning.
    expect(analysis.body).toEqual({
      company_name: 'Smile',
      language: 'en',
      script_language: 'en',
      call_flow: {
        greeting: { value: 'Good morning, Smile Clinic here.', source: 'script' },
        steps: [{ value: 'What is your name?', source: 'script' }],
        objections: [{ objection: 'they say they are busy', answer: 'Offer to call back tomorrow.', source: 'script' }],
        mandatory_phrases: [{ value: 'This call is recorded.', source: 'script' }],
        data_to_collect: [{ value: 'name', source: 'script' }],
        branches: [],
      },
      facts: {
        offer: { value: 'Smile Clinic', source: 'website' },
        prices: [{ value: '200 PLN', source: 'script' }],
        hours: { value: 'Mon-Fri 8-16', source: 'website' },
        address: { value: 'ul. Prosta 5, Warszawa', source: 'website' },
        faq: [{ value: 'Do you treat children?', source: 'website' }],
      },
      conflicts: [{ field: 'prices', script_value: '200 PLN', website_value: '250 PLN' }],
    });
    expect(
      (await api.request('GET', '/agents', { key: org.key })).body.map((agent: { name: string }) => agent.name),
    ).not.toContain('From script');

    const agent = await api.request('POST', '/agents/from-script', {
      key: org.key,
      body: { agent_name: 'From script', analysis: analysis.body },
    });
    expect(agent.status).toBe(200);
    expect(agent.body.workflow_definition).toMatchObject({
      greeting: 'Good morning, Smile Clinic here.',
      steps: ['What is your name?'],
      mandatory_phrases: ['This call is recorded.'],
      objections: [{ objection: 'they say they are busy', answer: 'Offer to call back tomorrow.' }],
    });
    expect(agent.body.template_context_variables).toMatchObject({
      company_name: 'Smile',
      prices: '200 PLN',
      address: 'ul. Prosta 5, Warszawa',
    });
    // The FAQ facts reach the agent's knowledge base, which the call searches on every caller turn.
    const kb = `/agents/${agent.body.id}/knowledge-base`;
    const documents = await api.request('GET', `${kb}/documents`, { key: org.key });
    expect(documents.body.items).toEqual([
      expect.objectContaining({ title: 'Questions customers ask Smile', characters: 'Do you treat children?'.length }),
    ]);
    const found = await api.request('GET', `${kb}/search?q=children`, { key: org.key });
    expect(found.body.passages).toEqual([
      expect.objectContaining({ title: 'Questions customers ask Smile', text: 'Do you treat children?' }),
    ]);

    // With generate_with_ai the model writes the questions from the steps and the data to collect.
    const written = await api.request('POST', '/agents/from-script', {
      key: org.key,
      body: { agent_name: 'Written from script', analysis: analysis.body, generate_with_ai: true },
    });
    if (needsLocalStack) {
      expect(written.status).toBe(503);
    } else {
      expect(written.status).toBe(200);
      const topics = [...analysis.body.call_flow.steps, ...analysis.body.call_flow.data_to_collect].map(
        (item: { value: string }) => item.value,
      );
      expect(topics.length).toBeGreaterThan(1);
      // The fake model's rule: a line that is a question stays, any other becomes "Could you tell me about …?".
      expect(written.body.workflow_definition.steps).toEqual(
        topics.map((topic: string) =>
          topic.endsWith('?') ? topic : `Could you tell me about ${topic.replace(/[.:]+$/, '').toLowerCase()}?`,
        ),
      );
      expect(written.body.workflow_definition.greeting).toBe('Good morning, Smile Clinic here.');
    }
  });

  it.skipIf(needsLocalStack)(
    "uses the organization's own model; its garbage or failure is a 502 naming it, never a 500",
    async () => {
      const own = await newOrganization('Own model');
      expect(
        (
          await api.request('PUT', '/model-key', {
            key: own.key,
            body: { api_key: 'sk-own-123456789', api_url: ownModelUrl, model: 'own' },
          })
        ).status,
      ).toBe(200);
      const analyze = () =>
        api.request('POST', '/agent-templates/analyze-script', {
          key: own.key,
          body: { script_text: script, language: 'en' },
        });
      ownAnswer = { status: 200, content: 'I think the greeting is "Good morning".' };
      const prose = await analyze();
      expect(prose.status).toBe(502);
      expect(prose.body.detail).toMatch(/^The organization's language model returned text that is not JSON/);
      ownAnswer = { status: 200, content: '{"call_flow": {"greeting": "Good morning"}}' };
      const partial = await analyze();
      expect(partial.status).toBe(502);
      expect(partial.body.detail).toMatch(
        /^The organization's language model returned a script_analysis that does not match/,
      );
      ownAnswer = { status: 500, content: '' };
      const failing = await analyze();
      expect(failing.status).toBe(502);
      expect(failing.body.detail).toMatch(/^The organization's language model answered 500/);
      // A valid structured answer from the organization's model is used as it is.
      ownAnswer = {
        status: 200,
        content: JSON.stringify({
          company_name: 'Own Clinic',
          script_language: 'en-GB',
          call_flow: {
            greeting: 'Hi from the own model',
            steps: ['Name?'],
            objections: [],
            mandatory_phrases: [],
            data_to_collect: ['name'],
            branches: [],
          },
          script_facts: { offer: null, prices: [], hours: null, address: null, faq: [] },
          website_facts: null,
        }),
      };
      const read = await analyze();
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({
        company_name: 'Own Clinic',
        script_language: 'en-GB',
        call_flow: { greeting: { value: 'Hi from the own model', source: 'script' } },
        facts: { offer: null, prices: [] },
        conflicts: [],
      });
    },
  );

  it.skipIf(needsLocalStack)('answers 503 naming what to configure when no platform model is configured', async () => {
    const stackEnv = inject('stackEnv');
    Object.assign(process.env, stackEnv);
    const { analyzeScript } = await import('../../shared/services/agent-authoring.ts');
    const { errorToResult } = await import('../../shared/http/errors.ts');
    delete process.env.LLM_API_URL;
    try {
      const error = await analyzeScript(org.organizationId, {
        script_text: script,
        company_name: '',
        language: 'en',
      }).catch((thrown: unknown) => thrown);
      expect(errorToResult(error)).toEqual({
        status: 503,
        body: { detail: expect.stringMatching(/^The platform language model is not configured \(LLM_API_URL unset\)/) },
      });
      const { createFromScript } = await import('../../shared/services/agent-authoring.ts');
      const unconfigured = await createFromScript(org.organizationId, {
        agent_name: 'Never created',
        analysis: {
          company_name: 'Smile',
          language: 'en',
          call_flow: {
            greeting: null,
            steps: [],
            objections: [],
            mandatory_phrases: [],
            data_to_collect: [],
            branches: [],
          },
          facts: { offer: null, prices: [], hours: null, address: null, faq: [] },
          conflicts: [],
        } as never,
        generate_with_ai: true,
      }).catch((thrown: unknown) => thrown);
      expect(errorToResult(unconfigured).status).toBe(503);
    } finally {
      process.env.LLM_API_URL = stackEnv.LLM_API_URL;
    }
  });
});

describe('extract-text', () => {
  it('reads PDF, DOCX, TXT and MD', async () => {
    expect((await upload(pdfWith('Opening hours 9 to 17'), 'faq.pdf')).body).toMatchObject({
      text: 'Opening hours 9 to 17',
      purpose: 'knowledge',
      file_name: 'faq.pdf',
    });
    expect((await upload(await docxWith('Prices start at 200 PLN'), 'prices.docx')).body.text).toBe(
      'Prices start at 200 PLN',
    );
    expect((await upload(new Blob(['# Title\n\nBody'], { type: 'text/markdown' }), 'notes.md')).body.text).toBe(
      '# Title\n\nBody',
    );
    const script = await upload(
      new Blob(['Hello   there\n\n\nHow are you?'], { type: 'text/plain' }),
      'script.txt',
      'script',
    );
    // purpose=script: the platform model cleans the script up (unconfigured on a fresh deployed stack: 503).
    if (needsLocalStack) expect(script.status).toBe(503);
    else expect(script.body).toMatchObject({ text: 'Hello there\nHow are you?', purpose: 'script' });
  });

  it('enforces the caps (413 bytes, 422 characters), the types (415) and the file part (422)', async () => {
    expect((await upload(new Blob(['x'.repeat(1024 * 1024 + 1)], { type: 'text/plain' }), 'big.txt')).status).toBe(413);
    const long = await upload(new Blob(['word '.repeat(5000)], { type: 'text/plain' }), 'long.txt');
    expect(long.status).toBe(422);
    expect(long.body.detail[0].loc).toEqual(['body', 'file']);
    expect((await upload(new Blob(['GIF89a'], { type: 'image/gif' }), 'picture.gif')).status).toBe(415);
    const form = new FormData();
    form.append('other', 'x');
    const noFile = await fetch(`${api.baseUrl}/agent-templates/extract-text`, {
      method: 'POST',
      headers: { 'X-API-Key': org.key },
      body: form,
    });
    expect(noFile.status).toBe(422);
    expect(((await noFile.json()) as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(['body', 'file']);
    expect(
      (await api.request('POST', '/agent-templates/extract-text?purpose=poem', { key: org.key, body: {} })).status,
    ).toBe(422);
  });
});
