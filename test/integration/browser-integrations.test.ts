/**
 * The Integrations page in a real headless Chromium, against the local Google: connect an account
 * through the provider's consent screen (PKCE, the state bound to the organization) and back,
 * see it listed, pick a spreadsheet with the provider's file picker and start a campaign from it
 * that calls its rows to the end, refuse an answer this tab did not start, disconnect; axe on the
 * page and the campaign form. Loopback only.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { accessibilityViolations, launchChromium, saveScreenshot } from '../support/browser.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually } from '../support/webhook-receiver.ts';

const api = apiClient();
const consoleUrl = new URL('/console/', inject('baseUrl')).toString();
const ACCOUNT = 'sheets-user@example.com';
let org: TestOrganization;
let agentPublicId: string;
let browser: Browser;
const offLoopback: string[] = [];

beforeAll(async () => {
  org = await newOrganization('Console integrations', 5);
  const agent = await api.request('POST', '/agents', { key: org.key, body: { name: 'Sheet caller' } });
  expect(agent.status).toBe(201);
  agentPublicId = agent.body.public_id;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function signIn(page: Page, key = org.key) {
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

async function newPage(): Promise<Page> {
  const page = await browser.newPage();
  page.on('request', (request) => {
    if (new URL(request.url()).hostname !== '127.0.0.1') offLoopback.push(request.url());
  });
  return page;
}

describe.skipIf(needsLocalStack)('the Integrations page (Chromium)', () => {
  it('connects Google Sheets through the consent screen, picks a spreadsheet and runs a campaign from it', async () => {
    const sheetId = `sheet-console-${Date.now()}`;
    const put = await fetch(`${inject('stackEnv').SHEETS_API_URL}/fake/spreadsheets/${sheetId}`, {
      method: 'PUT',
      body: JSON.stringify({
        name: 'Spring reminders',
        values: [
          ['Name', 'Phone'],
          ['Ada', daytimeNumber(7, 9)],
          ['Bea', daytimeNumber(8, 9)],
        ],
      }),
    });
    expect(put.status).toBe(204);

    const page = await newPage();
    await page.goto(`${consoleUrl}#/integrations`);
    // Audited once its list is read. (Not 'networkidle': Playwright fires it once per document, and the
    // console's pages are hash routes of one document, so after the first it no longer waits.)
    const connectionsRead = page.waitForResponse((response) => /\/api\/v1\/integrations\?/.test(response.url()));
    await signIn(page);
    await page.getByRole('heading', { name: 'Integrations', level: 2 }).waitFor();
    await connectionsRead;
    expect(await accessibilityViolations(page)).toEqual([]);

    // To the provider's consent screen, with the platform's client and PKCE.
    await page.getByRole('button', { name: 'Connect Google Sheets' }).click();
    await page.waitForURL(/\/o\/oauth2\/v2\/auth\?/);
    const consent = new URL(page.url());
    expect(consent.searchParams.get('code_challenge_method')).toBe('S256');
    expect(consent.searchParams.get('redirect_uri')).toBe(consoleUrl);
    await page.getByRole('button', { name: 'Allow' }).click();

    // Back in the console with the answer: signed in again (the key is kept for the tab), connected.
    await page.waitForURL((url) => url.href.startsWith(consoleUrl) && url.searchParams.has('code'));
    await signIn(page);
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe(`Connected ${ACCOUNT}.`);
    expect(new URL(page.url()).search).toBe('');
    expect(new URL(page.url()).hash).toBe('#/integrations');
    const accounts = page.getByRole('table', { name: 'Connected accounts' });
    await accounts.getByRole('cell', { name: ACCOUNT, exact: true }).waitFor();
    const listed = await api.request('GET', '/integrations', { key: org.key });
    expect(listed.body.items).toEqual([expect.objectContaining({ provider: 'google-sheets', account_email: ACCOUNT })]);

    // The provider's picker with the connection's token, then a campaign from the chosen sheet. The
    // form's list of agents is held until the form is filled in: a loaded machine reads it that late,
    // and a form sent before it had no agent (a 422, and no campaign).
    let releaseAgents!: () => void;
    const agentsHeld = new Promise<void>((resolve) => (releaseAgents = resolve));
    await page.route(/\/api\/v1\/agents\?status=active&/, async (route) => {
      await agentsHeld;
      await route.continue();
    });
    await page.getByRole('button', { name: `Choose a spreadsheet of ${ACCOUNT}` }).click();
    const picker = page.getByRole('dialog', { name: 'Select a file' });
    await picker.getByRole('button', { name: 'Spring reminders' }).click();
    await page.getByRole('heading', { name: 'New campaign from Spring reminders' }).waitFor();
    await page.getByLabel('Campaign name').fill('Spring reminders from the sheet');
    await page.getByLabel(/^Retries after busy/).fill('0');
    const create = page.getByRole('button', { name: 'Create and start campaign' });
    expect(await create.isDisabled()).toBe(true);
    releaseAgents();
    await expect.poll(() => create.isEnabled()).toBe(true);
    // The select shows the agent the campaign will call with.
    expect(await page.getByLabel('Agent').inputValue()).toBe(agentPublicId);
    expect(await accessibilityViolations(page)).toEqual([]);
    await saveScreenshot(page, 'console-integrations');
    const sent = page.waitForRequest((request) => request.method() === 'POST' && request.url().endsWith('/campaigns'));
    await create.click();
    expect((await sent).postDataJSON()).toMatchObject({ workflow_id: agentPublicId });
    // Creating it reads the sheet through the local provider and stores its contacts: slow under load.
    await page.waitForURL(/#\/campaigns\/\d+$/, { timeout: 60_000 }).catch(async (error: Error) => {
      // Say what the page showed instead (bounded: the form may be gone).
      const shown = await page.locator('main').innerText({ timeout: 5_000 });
      throw new Error(`${error.message}\nThe page showed: ${shown}`);
    });
    const campaignId = Number(/#\/campaigns\/(\d+)$/.exec(page.url())![1]);
    const finished = await eventually(
      async () => {
        const campaign = await api.request('GET', `/campaigns/${campaignId}`, { key: org.key });
        return campaign.body.state === 'completed' ? campaign.body : undefined;
      },
      90_000,
      500,
    );
    expect(finished).toMatchObject({
      name: 'Spring reminders from the sheet',
      source_type: 'google-sheet',
      source_id: sheetId,
      source_config: { connection_id: listed.body.items[0].id },
      total_rows: 2,
      processed_rows: 2,
    });
    // Every row of the sheet was called, once.
    const report = await api.request('GET', `/campaigns/${campaignId}/report`, { key: org.key });
    expect(report.body.items).toEqual([
      expect.objectContaining({ first_name: 'Ada', phone_number: daytimeNumber(7, 9), attempts: 1 }),
      expect.objectContaining({ first_name: 'Bea', phone_number: daytimeNumber(8, 9), attempts: 1 }),
    ]);

    // Disconnected: gone from the page and the API.
    await page.goto(`${consoleUrl}#/integrations`);
    await page.getByRole('button', { name: `Disconnect ${ACCOUNT}` }).click();
    await expect.poll(() => accounts.getByRole('row').count()).toBe(1);
    expect((await api.request('GET', '/integrations', { key: org.key })).body.items).toEqual([]);
    await page.close();
    expect(offLoopback).toEqual([]);
  });

  it('refuses an answer this tab did not start, and says so when the user cancels the consent', async () => {
    const other = await newOrganization('Console integrations, refused');
    const page = await newPage();
    await page.goto(`${consoleUrl}?code=4%2Fforged&state=${'A'.repeat(43)}`);
    await signIn(page, other.key);
    await expect
      .poll(() => page.getByRole('alert').first().textContent())
      .toMatch(/not for a connection started in this tab/);
    expect(new URL(page.url()).hash).toBe('#/integrations');

    await page.getByRole('button', { name: 'Connect Google Sheets' }).click();
    await page.waitForURL(/\/o\/oauth2\/v2\/auth\?/);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL((url) => url.href.startsWith(consoleUrl) && url.searchParams.has('error'));
    await signIn(page, other.key);
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/access_denied/);
    expect((await api.request('GET', '/integrations', { key: other.key })).body.items).toEqual([]);
    await page.close();
  });
});
