import { beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient, newOrganization, type TestOrganization, needsLocalStack } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { connectSheets, consentAnswer, CONSOLE_REDIRECT, pkcePair } from '../support/sheets-consent.ts';

const api = apiClient();
let org: TestOrganization;
let agent: { id: number };
const ALWAYS = { timezone: 'UTC', days: [1, 2, 3, 4, 5, 6, 7], start: '00:00', end: '23:59' };
const connect = (key = org.key) => connectSheets(api, key);

/** A consent started by `key`'s organization and answered Allow: the code, the state and the verifier. */
async function consented(key = org.key, redirectUri = CONSOLE_REDIRECT) {
  const { verifier, challenge } = pkcePair();
  const started = await api.request('POST', '/integrations/consents', {
    key,
    body: { provider: 'google-sheets', redirect_uri: redirectUri, code_challenge: challenge },
  });
  expect(started.status).toBe(201);
  const back = await consentAnswer(started.body.authorization_url);
  return {
    started: started.body,
    code: back.searchParams.get('code')!,
    state: back.searchParams.get('state')!,
    verifier,
    challenge,
  };
}

const complete = (
  answer: { code: string; state?: string; verifier?: string },
  key = org.key,
  redirectUri = CONSOLE_REDIRECT,
) =>
  api.request('POST', '/integrations', {
    key,
    body: {
      provider: 'google-sheets',
      authorization_code: answer.code,
      redirect_uri: redirectUri,
      ...(answer.state === undefined ? {} : { state: answer.state }),
      ...(answer.verifier === undefined ? {} : { code_verifier: answer.verifier }),
    },
  });

/** The local spreadsheet provider's test door: replace a sheet's cells. */
async function setSheet(id: string, values: string[][]) {
  const response = await fetch(`${inject('stackEnv').SHEETS_API_URL}/fake/spreadsheets/${id}`, {
    method: 'PUT',
    body: JSON.stringify({ values }),
  });
  expect(response.status).toBe(204);
}

beforeAll(async () => {
  org = await newOrganization('Integrations', 5);
  agent = (await api.request('POST', '/agents', { key: org.key, body: { name: 'Sheet caller' } })).body;
});

describe.skipIf(needsLocalStack)('spreadsheet connections', () => {
  it('connects with an OAuth code, never returns the refresh token, and hands out picker tokens valid ≤ 1 h', async () => {
    const created = await connect();
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^conn_[A-Za-z0-9]{16}$/),
      provider: 'google-sheets',
      account_email: 'sheets-user@example.com',
      created_at: expect.any(String),
    });
    expect(created.text).not.toMatch(/refresh|1\/\/local/);
    expect((await api.request('GET', '/integrations', { key: org.key })).body.items).toContainEqual(created.body);

    const token = await api.request('POST', `/integrations/${created.body.id}/sheets/picker-token`, { key: org.key });
    expect(token.status).toBe(200);
    expect(token.body).toEqual({
      access_token: expect.stringMatching(/^ya29\./),
      account_email: 'sheets-user@example.com',
      expires_in: 3600,
      picker_script_url: `${inject('stackEnv').SHEETS_API_URL}/js/api.js`,
      app_id: '123456789012',
      developer_key: null,
    });

    const stranger = await newOrganization('Connection stranger');
    expect(
      (await api.request('POST', `/integrations/${created.body.id}/sheets/picker-token`, { key: stranger.key })).status,
    ).toBe(404);
    expect((await api.request('POST', '/integrations/not-an-id/sheets/picker-token', { key: org.key })).status).toBe(
      422,
    );
    expect((await api.request('DELETE', `/integrations/${created.body.id}`, { key: org.key })).status).toBe(204);
    expect(
      (await api.request('POST', `/integrations/${created.body.id}/sheets/picker-token`, { key: org.key })).status,
    ).toBe(404);
  });

  it("starts a consent: the provider's consent URL for the platform's client, with offline access, PKCE and a state of 10 minutes", async () => {
    const { started, challenge, state } = await consented();
    const url = new URL(started.authorization_url);
    expect(url.origin + url.pathname).toBe(`${inject('stackEnv').SHEETS_API_URL}/o/oauth2/v2/auth`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: '123456789012-local.apps.googleusercontent.com',
      redirect_uri: CONSOLE_REDIRECT,
      response_type: 'code',
      scope: expect.stringContaining('https://www.googleapis.com/auth/spreadsheets.readonly'),
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
      state: started.state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    expect(state).toBe(started.state);
    const minutes = (Date.parse(started.expires_at) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(9);
    expect(minutes).toBeLessThanOrEqual(10);
  });

  it('completes a consent once, only for the organization that started it, with its redirect URI and its verifier', async () => {
    const answer = await consented();
    // Another organization cannot redeem it (and does not use it up).
    const stranger = await newOrganization('Consent stranger');
    const foreign = await complete(answer, stranger.key);
    expect(foreign.status).toBe(400);
    expect(foreign.body.detail).toMatch(/unknown or was already used/);
    // A verifier that is not the challenge's, or another redirect URI: refused, and the state is spent.
    const wrongVerifier = await consented();
    const refused = await complete({ ...wrongVerifier, verifier: pkcePair().verifier });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/code_verifier does not match/);
    expect((await complete(wrongVerifier)).status).toBe(400);
    const otherRedirect = await consented();
    const moved = await complete(otherRedirect, org.key, 'https://elsewhere.example.com/oauth');
    expect(moved.status).toBe(400);
    expect(moved.body.detail).toMatch(/redirect_uri differs/);
    // A state without its verifier.
    const halfAnswer = await complete({ code: answer.code, state: answer.state });
    expect(halfAnswer.status).toBe(400);
    expect(halfAnswer.body.detail).toMatch(/state and code_verifier go together/);
    // The rightful answer connects, once.
    const connected = await complete(answer);
    expect(connected.status).toBe(201);
    expect(connected.body.account_email).toBe('sheets-user@example.com');
    const again = await complete(answer);
    expect(again.status).toBe(400);
    expect(again.body.detail).toMatch(/already used/);
  });

  it("passes the verifier on: the provider refuses a consent's code redeemed without it", async () => {
    const answer = await consented();
    const withoutConsentCheck = await complete({ code: answer.code });
    expect(withoutConsentCheck.status).toBe(400);
    expect(withoutConsentCheck.body.detail).toMatch(/spreadsheet provider refused/);
  });

  it('validates the consent request', async () => {
    const response = await api.request('POST', '/integrations/consents', {
      key: org.key,
      body: { provider: 'google-sheets', redirect_uri: 'ftp://example.com/x', code_challenge: 'short' },
    });
    expect(response.status).toBe(422);
    expect(response.body.detail.map((item: { loc: unknown[] }) => item.loc)).toEqual([
      ['body', 'redirect_uri'],
      ['body', 'code_challenge'],
    ]);
  });

  it('validates the connection request', async () => {
    const response = await api.request('POST', '/integrations', {
      key: org.key,
      body: { provider: 'dropbox', authorization_code: '', redirect_uri: 'nope' },
    });
    expect(response.status).toBe(422);
    expect(response.body.detail.map((item: { loc: unknown[] }) => item.loc)).toEqual([
      ['body', 'provider'],
      ['body', 'authorization_code'],
      ['body', 'redirect_uri'],
    ]);
  });
});

describe.skipIf(needsLocalStack)('campaign sources backed by a connection or a feed', () => {
  it('reads a sheet, runs it, and on refresh adds only the new rows, running again', async () => {
    const { body: connection } = await connect();
    const sheetId = `sheet-${Date.now()}`;
    await setSheet(sheetId, [
      ['Name', 'Phone'],
      ['Ada', daytimeNumber(7, 7)],
      ['Bea', daytimeNumber(8, 7)],
    ]);
    const created = await api.request('POST', '/campaigns', {
      key: org.key,
      body: {
        name: 'From a sheet',
        workflow_id: agent.id,
        source_type: 'google-sheet',
        source_id: sheetId,
        source_config: { connection_id: connection.id },
        source_refresh_minutes: 5,
        calling_window: ALWAYS,
        retry_config: { enabled: false },
      },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ total_rows: 2, source_refresh_minutes: 5, source_sync_error: null });
    const id = created.body.id;
    await api.request('POST', `/campaigns/${id}/start`, { key: org.key });
    const state = (wanted: string, rows: number) =>
      eventually(
        async () => {
          const campaign = await api.request('GET', `/campaigns/${id}`, { key: org.key });
          return campaign.body.state === wanted &&
            campaign.body.total_rows === rows &&
            campaign.body.processed_rows === rows
            ? campaign.body
            : undefined;
        },
        60_000,
        250,
      );
    const first = await state('completed', 2);

    await setSheet(sheetId, [
      ['Name', 'Phone'],
      ['Ada', daytimeNumber(7, 7)],
      ['Bea', daytimeNumber(8, 7)],
      ['Cy', daytimeNumber(9, 7)],
    ]);
    const second = await state('completed', 3);
    expect(Date.parse(second.source_last_synced_at)).toBeGreaterThan(Date.parse(first.source_last_synced_at));
    const report = await api.request('GET', `/campaigns/${id}/report`, { key: org.key });
    expect(
      report.body.items.map((row: { first_name: string; status: string; attempts: number }) => [
        row.first_name,
        row.status,
        row.attempts,
      ]),
    ).toEqual([
      ['Ada', 'busy', 1],
      ['Bea', 'no_answer', 1],
      ['Cy', 'voicemail', 1],
    ]);

    await setSheet(sheetId, []);
    const failing = await eventually(
      async () => {
        const campaign = await api.request('GET', `/campaigns/${id}`, { key: org.key });
        return campaign.body.source_sync_error ? campaign.body : undefined;
      },
      30_000,
      250,
    );
    expect(failing.source_sync_error).toContain('empty');
    expect(failing.total_rows).toBe(3);
  });

  it('refuses a sheet source without a connection (422), with a foreign connection (404) or an unknown sheet (400)', async () => {
    const base = { name: 'Sheet', workflow_id: agent.id, source_type: 'google-sheet', source_id: 'missing-sheet' };
    const noConnection = await api.request('POST', '/campaigns', {
      key: org.key,
      body: { ...base, source_config: {} },
    });
    expect(noConnection.status).toBe(422);
    expect(noConnection.body.detail[0].loc).toEqual(['body', 'source_config', 'connection_id']);
    const stranger = await newOrganization('Sheet stranger');
    const { body: foreign } = await connect(stranger.key);
    expect(
      (
        await api.request('POST', '/campaigns', {
          key: org.key,
          body: { ...base, source_config: { connection_id: foreign.id } },
        })
      ).status,
    ).toBe(404);
    const { body: own } = await connect();
    const unknownSheet = await api.request('POST', '/campaigns', {
      key: org.key,
      body: { ...base, source_config: { connection_id: own.id } },
    });
    expect(unknownSheet.status).toBe(400);
  });

  it('takes upcoming events with a phone number from an iCalendar feed', async () => {
    const start = new Date(Date.now() + 86_400_000).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
    const ics = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//test//EN',
      'BEGIN:VEVENT',
      'UID:visit-1',
      `DTSTART:${start}`,
      'SUMMARY:Anna - check-up',
      `DESCRIPTION:Confirm with ${daytimeNumber(7, 8)}`,
      'END:VEVENT',
      'END:VCALENDAR',
    ].join('\r\n');
    const created = await api.request('POST', '/campaigns', {
      key: org.key,
      body: { name: 'Reminders', workflow_id: agent.id, source_type: 'calendar', source_config: { ics_text: ics } },
    });
    expect(created.status).toBe(200);
    const report = await api.request('GET', `/campaigns/${created.body.id}/report`, { key: org.key });
    expect(report.body.items).toEqual([
      expect.objectContaining({ first_name: 'Anna - check-up', phone_number: daytimeNumber(7, 8), status: 'pending' }),
    ]);
  });
});
