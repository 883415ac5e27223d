import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, newOrganization, type TestOrganization, needsLocalStack } from '../support/api.ts';
import { daytimeNumber, nighttimeNumber } from '../support/phone-numbers.ts';
import { eventually, startWebhookReceiver } from '../support/webhook-receiver.ts';

const api = apiClient();
let org: TestOrganization;
let agent: { id: number; public_id: string };
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let webhookSecret: string;

beforeAll(async () => {
  org = await newOrganization('Calls', 5);
  agent = (
    await api.request('POST', '/agents', {
      key: org.key,
      body: {
        name: 'Dentist reminders',
        // Short lines: the simulated speech lasts 60 ms per character.
        workflow_definition: { greeting: 'Hi {{initial_context.name}}.', steps: ['Confirm?'], closing: 'Bye.' },
        call_disposition_codes: { confirmed: 'Visit confirmed' },
        template_context_variables: { name: 'patient', clinic: 'Smile' },
      },
    })
  ).body;
  receiver = await startWebhookReceiver();
  const webhook = await api.request('POST', '/webhooks', {
    key: org.key,
    body: { url: receiver.url, events: ['call.completed'] },
  });
  expect(webhook.status).toBe(201);
  expect(webhook.body.secret).toMatch(/^whsec_/);
  webhookSecret = webhook.body.secret;
});

afterAll(() => receiver?.close());

const placeCall = (
  phone_number: string,
  options: { key?: string; agentRef?: string; headers?: Record<string, string>; initial_context?: object } = {},
) =>
  api.request('POST', `/agents/${options.agentRef ?? agent.public_id}/calls`, {
    key: options.key ?? org.key,
    headers: options.headers,
    body: { phone_number, initial_context: options.initial_context ?? { name: 'Anna' } },
  });

const getRun = (runId: number, key = org.key) =>
  api.request('GET', `/agents/${agent.public_id}/conversations/${runId}`, { key });

// A whole call: the simulated callee talks in real time (about 10 s, 20 s at most), which a
// loaded machine stretches; the poll's default 15 s was the call's length, not a bound on it.
const finishedRun = (runId: number) =>
  eventually(async () => {
    const run = await getRun(runId);
    return run.body.status !== 'in_progress' ? run.body : undefined;
  }, 60_000);

describe.skipIf(needsLocalStack)('placing a call', () => {
  it('runs the whole call: initiated, in progress, completed with recording, transcript and a signed webhook', async () => {
    const placed = await placeCall(daytimeNumber(1));
    expect(placed.status).toBe(200);
    expect(placed.body).toEqual({
      status: 'initiated',
      workflow_run_id: expect.any(Number),
      workflow_run_name: expect.any(String),
    });
    const runId = placed.body.workflow_run_id as number;

    const started = await getRun(runId);
    expect(started.body).toMatchObject({
      status: 'in_progress',
      duration_seconds: null,
      initial_context: { name: 'Anna', clinic: 'Smile' },
    });
    expect(started.body.recording_download_url).toBeNull();
    expect(
      (await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}/transcript`, { key: org.key }))
        .status,
    ).toBe(404);

    const run = await finishedRun(runId);
    expect(run.status).toBe('completed');
    expect(Number.isInteger(run.duration_seconds)).toBe(true);
    // The agent ended the call: on Twilio the stream's end ends `<Connect><Stream>`, the call's
    // last verb, so the call with it (the local Twilio does the same); no hang-up command is needed.
    expect(run.logs.map((log: { message: string }) => log.message).join('\n')).not.toContain('Hung up at');
    expect(run.gathered_context.call_disposition).toBe('confirmed');
    expect(run.recording_url).toMatch(/recording\.wav$/);
    expect(run.cost).toMatchObject({ currency: 'USD' });
    expect(Date.parse(run.download_urls_expire_at) - Date.now()).toBeGreaterThan(3500_000);

    const wav = await fetch(run.recording_download_url);
    expect(wav.status).toBe(200);
    const bytes = Buffer.from(await wav.arrayBuffer());
    expect(bytes.subarray(0, 4).toString()).toBe('RIFF');
    expect(bytes.subarray(8, 12).toString()).toBe('WAVE');
    expect(bytes.length).toBeGreaterThan(44 + 8000);

    const transcriptFile = await (await fetch(run.transcript_download_url)).text();
    expect(transcriptFile.split('\n')[0]).toMatch(/^\[\d{4}-\d\d-\d\dT[^\]]+\] assistant: Hi Anna\.$/);

    const transcript = await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}/transcript`, {
      key: org.key,
    });
    expect(transcript.status).toBe(200);
    expect(transcript.body.segments[0]).toMatchObject({ role: 'assistant', text: 'Hi Anna.' });
    expect(transcript.body.segments[1].role).toBe('user');

    const recording = await api.request(
      'GET',
      `/agents/${agent.public_id}/conversations/${runId}/recording?expires_in=120`,
      { key: org.key },
    );
    expect(recording.body.content_type).toBe('audio/wav');
    expect(Date.parse(recording.body.expires_at) - Date.now()).toBeLessThanOrEqual(120_000);

    const delivery = await eventually(() =>
      receiver.received.find((hook) => JSON.parse(hook.body).data.workflow_run_id === runId),
    );
    const verified = new Webhook(webhookSecret).verify(delivery.body, {
      'webhook-id': String(delivery.headers['webhook-id']),
      'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
      'webhook-signature': String(delivery.headers['webhook-signature']),
    }) as { type: string; data: Record<string, unknown> };
    expect(verified.type).toBe('call.completed');
    expect(verified.data).toMatchObject({ workflow_run_id: runId, status: 'completed', call_disposition: 'confirmed' });

    const list = await api.request('GET', `/agents/${agent.public_id}/conversations`, { key: org.key });
    const listed = list.body.items.find((item: { id: number }) => item.id === runId);
    expect(Object.keys(listed)).not.toContain('recording_download_url');
    expect(listed).toMatchObject({ duration_seconds: run.duration_seconds, gathered_context: run.gathered_context });

    // Deletion: gone everywhere, and the links issued before stop working.
    expect(
      (await api.request('DELETE', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key })).status,
    ).toBe(204);
    expect((await getRun(runId)).status).toBe(404);
    expect(
      (await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}/transcript`, { key: org.key }))
        .status,
    ).toBe(404);
    expect((await fetch(run.recording_download_url, { redirect: 'manual' })).status).toBe(404);
  });

  it.each([
    [7, 'busy'],
    [8, 'no_answer'],
  ])('ends a call to a number ending in %i as %s, with no recording', async (digit, status) => {
    const placed = await placeCall(daytimeNumber(digit, 1));
    const run = await finishedRun(placed.body.workflow_run_id);
    expect(run).toMatchObject({
      status,
      duration_seconds: 0,
      recording_download_url: null,
      gathered_context: { call_disposition: status },
    });
    expect(
      (await api.request('GET', `/agents/${agent.public_id}/conversations/${run.id}/recording`, { key: org.key }))
        .status,
    ).toBe(404);
  });

  it('ends a call answered by a machine (number ending in 9) as voicemail: hung up once detection recognises it', async () => {
    const placed = await placeCall(daytimeNumber(9, 1));
    const run = await finishedRun(placed.body.workflow_run_id);
    // Asynchronous detection: the stream opened at once (the machine's greeting is recorded).
    expect(run).toMatchObject({ status: 'voicemail', gathered_context: { call_disposition: 'voicemail' } });
    expect(run.recording_download_url).not.toBeNull();
  });

  it('refuses an invalid number with 422, a Do-not-call number with 403, and outside calling hours with 409', async () => {
    const invalid = await placeCall('+1234');
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail[0]).toMatchObject({ type: 'value_error', loc: ['body', 'phone_number'] });

    const blocked = daytimeNumber(3);
    await api.request('POST', '/do-not-call', { key: org.key, body: { phone_number: blocked } });
    const refused = await placeCall(blocked);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/^do_not_call/);

    const night = await placeCall(nighttimeNumber());
    expect(night.status).toBe(409);
    expect(night.body.detail.retry_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const retryAfter = Number(night.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(Math.abs(Date.parse(night.body.detail.retry_at) - Date.now() - retryAfter * 1000)).toBeLessThan(5_000);
  });

  it('answers 429 with Retry-After when every channel is busy, and frees the channel when the call ends', async () => {
    const small = await newOrganization('One channel', 1);
    const { body: smallAgent } = await api.request('POST', '/agents', { key: small.key, body: { name: 'Solo' } });
    const first = await placeCall(daytimeNumber(2), { key: small.key, agentRef: smallAgent.public_id });
    expect(first.status).toBe(200);
    const second = await placeCall(daytimeNumber(2), { key: small.key, agentRef: smallAgent.public_id });
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    await eventually(async () => {
      const run = await api.request(
        'GET',
        `/agents/${smallAgent.public_id}/conversations/${first.body.workflow_run_id}`,
        { key: small.key },
      );
      return run.body.status === 'in_progress' ? undefined : run;
    });
    expect((await placeCall(daytimeNumber(7), { key: small.key, agentRef: smallAgent.public_id })).status).toBe(200);
  });

  it('admits exactly as many concurrent calls as the organization has channels', async () => {
    const three = await newOrganization('Three channels', 3);
    const { body: threeAgent } = await api.request('POST', '/agents', { key: three.key, body: { name: 'Burst' } });
    const responses = await Promise.all(
      Array.from({ length: 12 }, () => placeCall(daytimeNumber(1), { key: three.key, agentRef: threeAgent.public_id })),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(9);
  });

  it('replays an Idempotency-Key: same response, one call; another body under the key is a 422 on the header', async () => {
    const key = `retry-${Date.now()}`;
    const number = daytimeNumber(8, 2);
    const first = await placeCall(number, { headers: { 'Idempotency-Key': key } });
    const replay = await placeCall(number, { headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    const misuse = await placeCall(daytimeNumber(9, 2), { headers: { 'Idempotency-Key': key } });
    expect(misuse.status).toBe(422);
    expect(misuse.body.detail[0].loc).toEqual(['header', 'Idempotency-Key']);
  });

  it('serves the earlier address /workflow/{workflow_id}/calls with the same rules', async () => {
    const placed = await api.request('POST', `/workflow/${agent.id}/calls`, {
      key: org.key,
      body: { phone_number: daytimeNumber(7, 3) },
    });
    expect(placed.status).toBe(200);
    const night = await api.request('POST', `/workflow/${agent.id}/calls`, {
      key: org.key,
      body: { phone_number: nighttimeNumber() },
    });
    expect(night.status).toBe(409);
  });

  it('refuses to delete a call in progress (409) and hides runs from other organizations (404)', async () => {
    const placed = await placeCall(daytimeNumber(4));
    const runId = placed.body.workflow_run_id;
    expect(
      (await api.request('DELETE', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key })).status,
    ).toBe(409);
    const stranger = await newOrganization('Stranger');
    expect((await getRun(runId, stranger.key)).status).toBe(404);
    await finishedRun(runId);
  });

  it('refuses altered download links with 403', async () => {
    const placed = await placeCall(daytimeNumber(5));
    const run = await finishedRun(placed.body.workflow_run_id);
    const link = new URL(run.recording_download_url);
    const [payload, signature] = link.pathname.split('/').at(-1)!.split('.');
    const forged = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    forged.e += 86_400;
    const tampered = `${link.origin}${link.pathname.replace(payload!, Buffer.from(JSON.stringify(forged)).toString('base64url'))}`;
    expect((await fetch(tampered, { redirect: 'manual' })).status).toBe(403);
    expect((await fetch(`${run.recording_download_url}x`, { redirect: 'manual' })).status).toBe(403);
    expect(signature).toBeTruthy();
  });
});
