import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { apiClient, newOrganization, type TestOrganization, needsLocalStack } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually } from '../support/webhook-receiver.ts';

const api = apiClient();
let org: TestOrganization;
let agent: { id: number; public_id: string; name: string };

/** Every day, all day (UTC): the legal hours of each contact are then the only limit. */
const ALWAYS = { timezone: 'UTC', days: [1, 2, 3, 4, 5, 6, 7], start: '00:00', end: '23:59' };
const FAST_RETRY = { max_retries: 1, retry_delay_seconds: 60, retry_on_busy: true, retry_on_no_answer: true };

beforeAll(async () => {
  org = await newOrganization('Campaigns', 5);
  agent = (
    await api.request('POST', '/agents', {
      key: org.key,
      body: {
        name: 'Campaign agent',
        workflow_definition: { greeting: 'Hi.', steps: ['Ok?'], closing: 'Bye.' },
        call_disposition_codes: { interested: '' },
      },
    })
  ).body;
});

const create = (body: Record<string, unknown>, key = org.key) =>
  api.request('POST', '/campaigns', {
    key,
    body: { name: 'Campaign', workflow_id: agent.id, source_type: 'manual', calling_window: ALWAYS, ...body },
  });

const waitForState = (id: number, state: string, key = org.key, timeoutMs = 60_000) =>
  eventually(
    async () => {
      const campaign = await api.request('GET', `/campaigns/${id}`, { key });
      return campaign.body.state === state ? campaign.body : undefined;
    },
    timeoutMs,
    250,
  );

const reportRows = async (id: number, key = org.key) => {
  const response = await api.request('GET', `/campaigns/${id}/report.csv`, { key });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/csv');
  return parse(response.text, { columns: true }) as Record<string, string>[];
};

describe('campaign validation', () => {
  it.each([
    [{ name: '' }, ['body', 'name'], 'string_too_short'],
    [{ name: 'x'.repeat(256) }, ['body', 'name'], 'string_too_long'],
    [{ goal: 'g'.repeat(65) }, ['body', 'goal'], 'string_too_long'],
    [{ workflow_id: 'abc' }, ['body', 'workflow_id'], 'int_parsing'],
    [{ source_type: 'excel' }, ['body', 'source_type'], 'string_pattern_mismatch'],
    [{ source_refresh_minutes: 4 }, ['body', 'source_refresh_minutes'], 'greater_than_equal'],
    [{ source_refresh_minutes: 10081 }, ['body', 'source_refresh_minutes'], 'less_than_equal'],
    [{ retry_config: { max_retries: 6 } }, ['body', 'retry_config', 'max_retries'], 'less_than_equal'],
    [{ retry_config: { max_retries: -1 } }, ['body', 'retry_config', 'max_retries'], 'greater_than_equal'],
    [
      { retry_config: { retry_delay_seconds: 59 } },
      ['body', 'retry_config', 'retry_delay_seconds'],
      'greater_than_equal',
    ],
    [
      { retry_config: { retry_delay_seconds: 86401 } },
      ['body', 'retry_config', 'retry_delay_seconds'],
      'less_than_equal',
    ],
    [{ retry_config: { enabled: 'maybe' } }, ['body', 'retry_config', 'enabled'], 'bool_parsing'],
    [{ retry_config: 'often' }, ['body', 'retry_config'], 'model_attributes_type'],
    [{ manual_contacts: [{ first_name: 'Ann' }] }, ['body', 'manual_contacts', 0, 'phone_number'], 'missing'],
    [{ manual_contacts: [{ phone_number: '' }] }, ['body', 'manual_contacts', 0, 'phone_number'], 'string_too_short'],
    [{ calling_window: { timezone: 'Mars/Olympus' } }, ['body', 'calling_window', 'timezone'], 'value_error'],
    [{ calling_window: { days: [0] } }, ['body', 'calling_window', 'days', 0], 'greater_than_equal'],
    [{ calling_window: { days: [8] } }, ['body', 'calling_window', 'days', 0], 'less_than_equal'],
    [{ calling_window: { days: [] } }, ['body', 'calling_window', 'days'], 'too_short'],
    [{ calling_window: { start: '9:00' } }, ['body', 'calling_window', 'start'], 'string_pattern_mismatch'],
    [{ calling_window: { start: '18:00', end: '09:00' } }, ['body', 'calling_window'], 'value_error'],
    [{ scheduled_start_at: 'tomorrow' }, ['body', 'scheduled_start_at'], 'datetime_from_date_parsing'],
  ])('%j → %j %s', async (change, loc, type) => {
    const response = await create({ manual_contacts: [{ phone_number: daytimeNumber(1) }], ...change });
    expect(response.status).toBe(422);
    expect(response.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  it.each([
    ['manual', { manual_contacts: [{ phone_number: daytimeNumber(1) }] }, 'a manual source'],
    ['csv', { source_config: { csv_text: `phone_number\n${daytimeNumber(1)}\n` } }, 'a csv source'],
    [
      'calendar',
      { source_config: { ics_text: 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n' } },
      'a calendar given as ics_text source',
    ],
  ])(
    'refuses source_refresh_minutes on a %s source, which is read once (nothing created)',
    async (type, source, named) => {
      const before = (await api.request('GET', '/campaigns?limit=1', { key: org.key })).body.total_count;
      const response = await create({ source_type: type, source_refresh_minutes: 60, ...source });
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual([
        expect.objectContaining({
          type: 'value_error',
          loc: ['body', 'source_refresh_minutes'],
          input: 60,
          msg: expect.stringContaining(`${named} is read once`),
        }),
      ]);
      expect((await api.request('GET', '/campaigns?limit=1', { key: org.key })).body.total_count).toBe(before);
    },
  );

  it("accepts the agent's public id as workflow_id and answers with the integer", async () => {
    const created = await create({
      workflow_id: agent.public_id,
      manual_contacts: [{ phone_number: daytimeNumber(1) }],
    });
    expect(created.status).toBe(200);
    expect(created.body.workflow_id).toBe(agent.id);
    expect(
      (
        await create({
          workflow_id: 'agent_00000000000000000000',
          manual_contacts: [{ phone_number: daytimeNumber(1) }],
        })
      ).status,
    ).toBe(404);
  });

  it('applies and documents the default retry policy when retry_config is omitted', async () => {
    const created = await create({ manual_contacts: [{ phone_number: daytimeNumber(1) }] });
    expect(created.body.retry_config).toMatchObject({
      enabled: true,
      max_retries: 1,
      retry_delay_seconds: 3600,
      retry_on_voicemail: false,
    });
    const document = (await api.request('GET', '/public-openapi.json')).body;
    const operation = document.paths['/campaigns'].post;
    const request = document.components.schemas.CampaignCreateRequest;
    expect(request.properties.retry_config.description).toContain('one retry one hour after');
    expect(operation.parameters.filter((parameter: { in: string }) => parameter.in === 'header')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'X-API-Key',
          required: false,
          schema: expect.objectContaining({ type: 'string' }),
        }),
        expect.objectContaining({
          name: 'authorization',
          required: false,
          schema: expect.objectContaining({ type: 'string' }),
        }),
      ]),
    );
  });

  it('reports every missing required field, and a manual campaign without contacts', async () => {
    const missing = await api.request('POST', '/campaigns', { key: org.key, body: {} });
    expect(missing.body.detail.map((item: { loc: unknown[] }) => item.loc)).toEqual([
      ['body', 'name'],
      ['body', 'workflow_id'],
      ['body', 'source_type'],
    ]);
    const noContacts = await create({});
    expect(noContacts.status).toBe(422);
    expect(noContacts.body.detail[0].loc).toEqual(['body', 'manual_contacts']);
  });

  it('answers 404 for an unknown or foreign workflow_id', async () => {
    expect((await create({ workflow_id: 987654, manual_contacts: [{ phone_number: daytimeNumber(1) }] })).status).toBe(
      404,
    );
    const stranger = await newOrganization('Campaign stranger');
    expect((await create({ manual_contacts: [{ phone_number: daytimeNumber(1) }] }, stranger.key)).status).toBe(404);
  });
});

describe('campaign creation limits, retries and large sources', () => {
  it('caps manual_contacts per request (422) and the CSV text (413), creating nothing', async () => {
    const before = (await api.request('GET', '/campaigns', { key: org.key })).body.total_count;
    const tooMany = await create({
      manual_contacts: Array.from({ length: 10_001 }, () => ({ phone_number: '+48601234567' })),
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail).toContainEqual(
      expect.objectContaining({ loc: ['body', 'manual_contacts'], type: 'too_long' }),
    );
    const csv = `phone\n${'+48601234567\n'.repeat(450_000)}`;
    const tooBig = await create({ source_type: 'csv', source_config: { csv_text: csv } });
    expect(tooBig.status).toBe(413);
    expect(typeof tooBig.body.detail).toBe('string');
    expect((await api.request('GET', '/campaigns', { key: org.key })).body.total_count).toBe(before);
  });

  it('creates once per Idempotency-Key: a retry returns the same campaign, another body under the key is refused', async () => {
    const key = `campaign-${Date.now()}`;
    const body = {
      name: 'Once',
      workflow_id: agent.id,
      source_type: 'manual',
      manual_contacts: [{ phone_number: daytimeNumber(1) }],
    };
    const first = await api.request('POST', '/campaigns', { key: org.key, body, headers: { 'Idempotency-Key': key } });
    const again = await api.request('POST', '/campaigns', { key: org.key, body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const other = await api.request('POST', '/campaigns', {
      key: org.key,
      body: { ...body, name: 'Other' },
      headers: { 'Idempotency-Key': key },
    });
    expect(other.status).toBe(422);
    expect(other.body.detail[0].loc).toEqual(['header', 'Idempotency-Key']);
  });

  it('imports a large source in the background: importing at once, then draft with every contact', async () => {
    const rows = Array.from({ length: 1_500 }, (_, i) => `+4860100${String(i).padStart(4, '0')},Name${i}`).join('\n');
    const created = await create({ source_type: 'csv', source_config: { csv_text: `phone,first_name\n${rows}` } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ state: 'importing', total_rows: 1_500 });
    expect((await api.request('POST', `/campaigns/${created.body.id}/start`, { key: org.key })).status).toBe(409);
    const draft = await waitForState(created.body.id, 'draft', org.key, 110_000);
    expect(draft.total_rows).toBe(1_500);
    const report = await api.request('GET', `/campaigns/${created.body.id}/report?limit=1&page=1500`, { key: org.key });
    expect(report.body.total_count).toBe(1_500);
    expect(report.body.items[0]).toMatchObject({ row: 1_500, first_name: 'Name1499', status: 'pending' });
  }, 120_000);
});

const FORMULA = '=HYPERLINK("http://example.invalid","click")';

describe.skipIf(needsLocalStack)('running a campaign', () => {
  it('dials each contact inside the windows, retries per policy, skips Do-not-call, reports every row', async () => {
    const blocked = daytimeNumber(3, 1);
    await api.request('POST', '/do-not-call', { key: org.key, body: { phone_number: blocked } });
    const created = await create({
      name: 'Five contacts',
      retry_config: FAST_RETRY,
      manual_contacts: [
        { phone_number: daytimeNumber(1, 1), first_name: 'Ann', last_name: 'Answer' },
        { phone_number: daytimeNumber(7, 1), first_name: 'Bob', last_name: 'Busy' },
        { phone_number: blocked, first_name: 'Dan', last_name: FORMULA },
        { phone_number: '12345', first_name: 'Ivy', last_name: 'Invalid' },
        { phone_number: daytimeNumber(9, 1), first_name: 'Val', last_name: 'Voicemail' },
      ],
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      state: 'draft',
      workflow_id: agent.id,
      workflow_name: 'Campaign agent',
      source_type: 'manual',
      source_id: '',
      total_rows: 5,
      processed_rows: 1,
      failed_rows: 1,
      started_at: null,
      completed_at: null,
    });

    const started = await api.request('POST', `/campaigns/${created.body.id}/start`, { key: org.key });
    expect(started.body.state).toBe('running');
    expect(started.body.started_at).not.toBeNull();

    const done = await waitForState(created.body.id, 'completed');
    expect(done).toMatchObject({ total_rows: 5, processed_rows: 5, failed_rows: 2 });
    expect(done.completed_at).not.toBeNull();

    const rows = await reportRows(created.body.id);
    expect(rows.map((row) => [row.first_name, row.status, row.attempts])).toEqual([
      ['Ann', 'completed', '1'],
      ['Bob', 'busy', '2'],
      ['Dan', 'do_not_call', '0'],
      ['Ivy', 'invalid', '0'],
      ['Val', 'voicemail', '1'],
    ]);
    expect(rows[0]!.run_id).toMatch(/^\d+$/);
    expect(rows[3]!.error).toContain('invalid phone number');
    // Opened in a spreadsheet, a cell that begins like a formula is text (OWASP's leading quote).
    expect(rows[2]!.last_name).toBe(`'${FORMULA}`);
    expect(rows[0]!.phone_number).toBe(`'${daytimeNumber(1, 1)}`);

    const json = await api.request('GET', `/campaigns/${created.body.id}/report?limit=2&page=2`, { key: org.key });
    expect(json.body).toMatchObject({ page: 2, limit: 2, total_count: 5, total_pages: 3 });
    expect(json.body.items.map((row: { row: number }) => row.row)).toEqual([3, 4]);
    // The JSON report keeps the value as entered.
    expect(json.body.items[0]).toMatchObject({ last_name: FORMULA, phone_number: blocked });

    expect((await api.request('POST', `/campaigns/${created.body.id}/resume`, { key: org.key })).status).toBe(409);
    expect((await api.request('POST', `/campaigns/${created.body.id}/cancel`, { key: org.key })).status).toBe(409);
  });

  it('pauses within seconds (calls in progress finish) and resumes where it stopped, never dialing a contact twice', async () => {
    const single = await newOrganization('Pause', 1);
    const { body: pauseAgent } = await api.request('POST', '/agents', {
      key: single.key,
      body: { name: 'Pauser', workflow_definition: { greeting: 'Hi.', steps: [], closing: 'Bye.' } },
    });
    const created = await api.request('POST', '/campaigns', {
      key: single.key,
      body: {
        name: 'Pause me',
        workflow_id: pauseAgent.id,
        source_type: 'manual',
        calling_window: ALWAYS,
        manual_contacts: [1, 2, 3].map((digit) => ({ phone_number: daytimeNumber(digit, 2) })),
      },
    });
    const id = created.body.id;
    await api.request('POST', `/campaigns/${id}/start`, { key: single.key });
    const dialingFirst = await eventually(async () => {
      const report = await api.request('GET', `/campaigns/${id}/report`, { key: single.key });
      return report.body.items.some((row: { status: string }) => row.status === 'dialing') ? report.body : undefined;
    });
    expect(dialingFirst.items.filter((row: { attempts: number }) => row.attempts > 0)).toHaveLength(1);
    expect((await api.request('POST', `/campaigns/${id}/pause`, { key: single.key })).body.state).toBe('paused');

    // The call in progress ends and is recorded; nothing else is dialed while paused.
    await eventually(async () => {
      const report = await api.request('GET', `/campaigns/${id}/report`, { key: single.key });
      return report.body.items[0].status === 'completed' ? true : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const paused = await api.request('GET', `/campaigns/${id}/report`, { key: single.key });
    expect(paused.body.items.map((row: { status: string }) => row.status)).toEqual(['completed', 'pending', 'pending']);
    expect((await api.request('GET', `/campaigns/${id}`, { key: single.key })).body).toMatchObject({
      state: 'paused',
      processed_rows: 1,
    });

    // A definition published while the campaign runs is not what its calls run: they keep the
    // version the campaign started with.
    const republished = await api.request('PATCH', `/agents/${pauseAgent.id}`, {
      key: single.key,
      body: { workflow_definition: { greeting: 'Hello, new version.', steps: [], closing: 'Bye.' } },
    });
    expect(republished.body.current_definition_id).toBeGreaterThan(pauseAgent.current_definition_id);

    expect((await api.request('POST', `/campaigns/${id}/resume`, { key: single.key })).body.state).toBe('running');
    await waitForState(id, 'completed', single.key);
    const rows = await reportRows(id, single.key);
    expect(rows.map((row) => [row.status, row.attempts])).toEqual([
      ['completed', '1'],
      ['completed', '1'],
      ['completed', '1'],
    ]);
    const runs = await api.request('GET', `/agents/${pauseAgent.id}/conversations?limit=100`, { key: single.key });
    expect(runs.body.total_count).toBe(3);
    expect(runs.body.items.map((run: { definition_id: number }) => run.definition_id)).toEqual(
      Array(3).fill(pauseAgent.current_definition_id),
    );
  });

  it('never uses more channels than the organization has', async () => {
    const two = await newOrganization('Two channels', 2);
    const { body: busyAgent } = await api.request('POST', '/agents', { key: two.key, body: { name: 'Busy lines' } });
    const created = await api.request('POST', '/campaigns', {
      key: two.key,
      body: {
        name: 'Capacity',
        workflow_id: busyAgent.id,
        source_type: 'manual',
        calling_window: ALWAYS,
        retry_config: { enabled: false },
        manual_contacts: [0, 1, 2, 3, 4, 5].map((digit) => ({
          phone_number: daytimeNumber(digit === 5 ? 7 : digit, 3),
        })),
      },
    });
    await api.request('POST', `/campaigns/${created.body.id}/start`, { key: two.key });
    let most = 0;
    await eventually(
      async () => {
        const runs = await api.request('GET', `/agents/${busyAgent.id}/conversations?limit=100`, { key: two.key });
        most = Math.max(most, runs.body.items.filter((run: { status: string }) => run.status === 'in_progress').length);
        const campaign = await api.request('GET', `/campaigns/${created.body.id}`, { key: two.key });
        return campaign.body.state === 'completed' ? true : undefined;
      },
      90_000,
      200,
    );
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(2);
  });

  it('waits for the calling window instead of dialing outside it', async () => {
    const tomorrow = (new Date().getUTCDay() + 1) % 7 || 7; // ISO weekday of tomorrow (UTC)
    const created = await create({
      name: 'Tomorrow only',
      calling_window: { timezone: 'UTC', days: [tomorrow], start: '10:00', end: '11:00' },
      manual_contacts: [{ phone_number: daytimeNumber(1) }],
    });
    const id = created.body.id;
    await api.request('POST', `/campaigns/${id}/start`, { key: org.key });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const report = await api.request('GET', `/campaigns/${id}/report`, { key: org.key });
    expect(report.body.items[0]).toMatchObject({ status: 'pending', attempts: 0, run_id: null });
    expect((await api.request('GET', `/campaigns/${id}`, { key: org.key })).body).toMatchObject({
      state: 'running',
      processed_rows: 0,
    });
    expect((await api.request('POST', `/campaigns/${id}/cancel`, { key: org.key })).body.state).toBe('cancelled');
  });

  it('starts itself at scheduled_start_at', async () => {
    const created = await create({
      name: 'Scheduled',
      scheduled_start_at: new Date(Date.now() + 2000).toISOString(),
      retry_config: { enabled: false },
      manual_contacts: [{ phone_number: daytimeNumber(8, 4) }],
    });
    expect(created.body.state).toBe('scheduled');
    const done = await waitForState(created.body.id, 'completed');
    expect(Date.parse(done.started_at)).toBeGreaterThanOrEqual(Date.parse(created.body.scheduled_start_at) - 1);
  });

  it('reads contacts from CSV text, counting and explaining the rows it cannot call', async () => {
    const csvText = `first_name,last_name,mobile\r\nAnna,Nowak,${daytimeNumber(8, 5)}\r\nJan,Kowalski,not a number\r\n`;
    const created = await create({
      name: 'From CSV',
      source_type: 'csv',
      source_config: { csv_text: csvText },
      retry_config: { enabled: false },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ total_rows: 2, failed_rows: 1, processed_rows: 1 });
    expect(created.body.source_config).toEqual({});
    const report = await api.request('GET', `/campaigns/${created.body.id}/report`, { key: org.key });
    expect(
      report.body.items.map((row: { first_name: string; status: string }) => [row.first_name, row.status]),
    ).toEqual([
      ['Anna', 'pending'],
      ['Jan', 'invalid'],
    ]);
    const broken = await create({ source_type: 'csv', source_config: { csv_text: 'a,b\nx,y\n' } });
    expect(broken.status).toBe(422);
    expect(broken.body.detail[0].loc).toEqual(['body', 'source_config', 'csv_text']);
  });

  it('lists campaigns newest first and hides other organizations’ campaigns', async () => {
    const list = await api.request('GET', '/campaigns?limit=2', { key: org.key });
    expect(list.body.limit).toBe(2);
    expect(list.body.items[0].id).toBeGreaterThan(list.body.items[1].id);
    const stranger = await newOrganization('Campaign list stranger');
    expect((await api.request('GET', `/campaigns/${list.body.items[0].id}`, { key: stranger.key })).status).toBe(404);
    expect((await api.request('GET', '/campaigns', { key: stranger.key })).body.total_count).toBe(0);
  });
});
