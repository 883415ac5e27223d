import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually, startWebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * Erasure that erases (the spec: deleting a finished run removes its recording, transcript,
 * contexts, logs, SMS and delivery records irreversibly): a campaign call through the local Twilio,
 * analyzed, then deleted; every place that could hold a copy is read, through the API and in
 * storage (the table's items, the bucket's objects). And retention: a recording the bucket's
 * lifecycle expired answers 404 while its run stays.
 */
const api = apiClient();
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver?.close());

const PLAN = {
  summary_prompt: 'Summarize in one sentence.',
  structured_data_schema: {
    type: 'object',
    properties: { availability_request: { type: 'string' } },
    required: ['availability_request'],
  },
  success_criteria: 'The person asked about availability.',
};
/** What the simulated callee says (local/fakes), and what the fake model's analysis copies of it. */
const CALLEE_LINES = ['What are your opening hours?', 'Please check availability for tomorrow.'];

async function newAgent(org: TestOrganization) {
  const created = await api.request('POST', '/agents', {
    key: org.key,
    body: {
      name: 'Erased',
      workflow_definition: {
        greeting: 'Hi, Smile clinic here.',
        prompt: 'You book dental visits.',
        steps: ['Would you like to book a visit?', 'Shall I book it?'],
        closing: 'Bye.',
      },
      call_disposition_codes: { booked: 'Visit booked' },
      workflow_configurations: { silence_timeout_seconds: 6, analysis: PLAN },
    },
  });
  expect(created.status).toBe(201);
  return created.body as { id: number; public_id: string };
}

/** The local stack's storage, read directly. */
async function storage() {
  Object.assign(process.env, inject('stackEnv'));
  const [{ db, tableName }, { s3 }, { loadConfig }, { ScanCommand }, { ListObjectsV2Command, DeleteObjectCommand }] =
    await Promise.all([
      import('../../shared/repositories/table.ts'),
      import('../../shared/aws/clients.ts'),
      import('../../shared/config.ts'),
      import('@aws-sdk/lib-dynamodb'),
      import('@aws-sdk/client-s3'),
    ]);
  const bucket = loadConfig().bucketName;
  return {
    /** Every table item that names the organization (its partitions, its index entries, its references). */
    async itemsOf(orgId: number): Promise<Record<string, unknown>[]> {
      const mine = new RegExp(`ORG#${orgId}(#|")|"organization_id":${orgId}[,}]|org-${orgId}/`);
      const items: Record<string, unknown>[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await db().send(new ScanCommand({ TableName: tableName(), ExclusiveStartKey: start }));
        items.push(...(page.Items ?? []).filter((item) => mine.test(JSON.stringify(item))));
        start = page.LastEvaluatedKey;
      } while (start);
      return items;
    },
    async objects(prefix: string): Promise<string[]> {
      const listed = await s3().send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
      return (listed.Contents ?? []).map((object) => object.Key!);
    },
    /** What the bucket's lifecycle rule does when a file's retention ends. */
    expire: (key: string) => s3().send(new DeleteObjectCommand({ Bucket: bucket, Key: key })),
  };
}

describe.skipIf(needsLocalStack)('erasing a call', () => {
  it(
    'deletes a campaign call with every copy of its content; billing and the campaign’s counts stay',
    { timeout: 120_000 },
    async () => {
      const store = await storage();
      const org = await newOrganization('Erasure campaign', 2);
      const agent = await newAgent(org);
      const webhook = await api.request('POST', '/webhooks', {
        key: org.key,
        body: { url: receiver.url, events: ['call.completed'] },
      });
      expect(webhook.status).toBe(201);
      const number = daytimeNumber(2, 5); // answers and speaks CALLEE_LINES
      const created = await api.request('POST', '/campaigns', {
        key: org.key,
        body: {
          name: 'Erased campaign',
          workflow_id: agent.id,
          source_type: 'manual',
          calling_window: { timezone: 'UTC', days: [1, 2, 3, 4, 5, 6, 7], start: '00:00', end: '23:59' },
          retry_config: { max_retries: 0 },
          manual_contacts: [{ phone_number: number, first_name: 'Ann', last_name: 'Answer' }],
        },
      });
      expect(created.status).toBe(200);
      const campaignId = created.body.id as number;
      expect((await api.request('POST', `/campaigns/${campaignId}/start`, { key: org.key })).status).toBe(200);
      const report = () => api.request('GET', `/campaigns/${campaignId}/report`, { key: org.key });
      const before = await eventually(
        async () => {
          const [row] = (await report()).body.items;
          return row?.status === 'completed' && row.analysis_summary ? row : undefined;
        },
        90_000,
        500,
      );
      expect(before).toMatchObject({ call_disposition: expect.any(String), analysis_successful: true });
      expect(before.analysis_data).toEqual({ availability_request: CALLEE_LINES[1] });
      const runId = before.run_id as number;
      const runPath = `/agents/${agent.public_id}/conversations/${runId}`;
      const run = (await api.request('GET', runPath, { key: org.key })).body;
      expect(run).toMatchObject({ status: 'completed', phone_number: number });
      expect(run.logs.length).toBeGreaterThan(0);
      expect((await api.request('GET', `${runPath}/transcript`, { key: org.key })).text).toContain(CALLEE_LINES[0]);
      await eventually(() =>
        receiver.received.some((hook) => hook.body.includes(`"workflow_run_id":${runId}`)) ? true : undefined,
      );
      const billed = async () =>
        (await api.request('GET', '/organizations/usage/runs', { key: org.key })).body.items.find(
          (item: { run_id: number }) => item.run_id === runId,
        );
      const billedBefore = await billed();
      expect(billedBefore).toMatchObject({ run_id: runId, duration_seconds: run.duration_seconds });
      const campaignBefore = (await api.request('GET', `/campaigns/${campaignId}`, { key: org.key })).body;
      expect(campaignBefore).toMatchObject({ processed_rows: 1 });

      // Where the call's content is before: the run, its logs, its deliveries, the contact; its files.
      const holding = (items: Record<string, unknown>[]) =>
        items.filter((item) => CALLEE_LINES.some((line) => JSON.stringify(item).includes(line)));
      const types = (items: Record<string, unknown>[]) => [...new Set(items.map((item) => item.type))].sort();
      const itemsBefore = await store.itemsOf(org.organizationId);
      expect(types(holding(itemsBefore))).toEqual(expect.arrayContaining(['campaignContact', 'run']));
      const runFolder = `runs/org-${org.organizationId}/agent-${agent.id}/run-${runId}/`;
      expect(await store.objects(runFolder)).toEqual(
        expect.arrayContaining([`${runFolder}recording.wav`, `${runFolder}transcript.txt`]),
      );

      expect((await api.request('DELETE', runPath, { key: org.key })).status).toBe(204);

      // Through the API: the run and its files are gone; the contact keeps only its counts.
      for (const path of [runPath, `${runPath}/transcript`, `${runPath}/recording`])
        expect((await api.request('GET', path, { key: org.key })).status).toBe(404);
      const listed = await api.request('GET', `/agents/${agent.public_id}/conversations`, { key: org.key });
      expect(listed.body.items.map((item: { id: number }) => item.id)).not.toContain(runId);
      const [after] = (await report()).body.items;
      expect(after).toEqual({
        ...before,
        call_disposition: null,
        analysis_summary: null,
        analysis_successful: null,
        analysis_data: null,
        run_erased_at: expect.any(String),
      });
      expect(before.run_erased_at).toBeNull();
      const csv = await api.request('GET', `/campaigns/${campaignId}/report.csv`, { key: org.key });
      const [csvRow] = parse(csv.text, { columns: true }) as Record<string, string>[];
      expect(csvRow).toMatchObject({
        status: 'completed',
        attempts: '1',
        last_outcome: 'completed',
        run_id: String(runId),
        call_disposition: 'erased',
        analysis_summary: 'erased',
        analysis_successful: 'erased',
        analysis_data: 'erased',
        run_erased_at: after.run_erased_at,
      });
      expect(csv.text).not.toContain(CALLEE_LINES[0]);
      expect((await api.request('GET', `/campaigns/${campaignId}`, { key: org.key })).body).toMatchObject({
        processed_rows: campaignBefore.processed_rows,
        failed_rows: campaignBefore.failed_rows,
      });
      expect(await billed()).toEqual(billedBefore);

      // In storage: no item holds what was said; the number stays only in the campaign's own
      // contact list; no run, log line or delivery item is left; no file under the run's folder.
      const itemsAfter = await store.itemsOf(org.organizationId);
      expect(holding(itemsAfter)).toEqual([]);
      expect(
        itemsAfter.filter((item) => JSON.stringify(item).includes(number.slice(1)) && item.type !== 'campaignContact'),
      ).toEqual([]);
      const runKeys = new RegExp(`RUN#0*${runId}\\b|#${agent.id}#${runId}$`);
      expect(itemsAfter.filter((item) => runKeys.test(`${item.pk} ${item.sk} ${item.gsi1pk ?? ''}`))).toEqual([]);
      expect(types(itemsAfter)).not.toContain('run');
      const usage = itemsAfter.filter((item) => item.type === 'usage');
      expect(usage).toEqual([expect.objectContaining({ run_id: runId, cost_usd: billedBefore.cost_usd })]);
      const contact = itemsAfter.find((item) => item.type === 'campaignContact')!;
      expect(contact).not.toHaveProperty('analysis');
      expect(contact).toMatchObject({ call_disposition: null, erased_run_id: runId, run_id: runId });
      expect(await store.objects(runFolder)).toEqual([]);
      expect(await store.objects(`reports/org-${org.organizationId}/`)).toEqual([]);
    },
  );

  it('answers 404 for a recording retention deleted, and the run stays readable', { timeout: 90_000 }, async () => {
    const store = await storage();
    const org = await newOrganization('Erasure retention', 1);
    const agent = await newAgent(org);
    const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
      key: org.key,
      body: { phone_number: daytimeNumber(2, 4) },
    });
    expect(placed.status).toBe(200);
    const runPath = `/agents/${agent.public_id}/conversations/${placed.body.workflow_run_id}`;
    const run = await eventually(
      async () => {
        const body = (await api.request('GET', runPath, { key: org.key })).body;
        return body.status === 'completed' && body.recording_download_url ? body : undefined;
      },
      60_000,
      500,
    );
    const recording = await api.request('GET', `${runPath}/recording`, { key: org.key });
    expect(recording.status).toBe(200);

    await store.expire(run.recording_url);

    const gone = await api.request('GET', `${runPath}/recording`, { key: org.key });
    expect(gone.status).toBe(404);
    expect(gone.body.detail).toMatch(/no longer exists/);
    // A link issued before the expiry leads nowhere either.
    const link = await fetch(recording.body.download_url, { redirect: 'manual' });
    expect(link.status).toBe(404);
    const kept = await api.request('GET', runPath, { key: org.key });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({
      status: 'completed',
      duration_seconds: run.duration_seconds,
      recording_url: run.recording_url,
      recording_download_url: null,
      transcript_download_url: expect.any(String),
    });
    expect((await api.request('GET', `${runPath}/transcript`, { key: org.key })).status).toBe(200);
  });
});
