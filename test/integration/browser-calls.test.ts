/**
 * The console's calls page in a real headless Chromium: sign in, the agent's calls in a table,
 * a finished call opened with its recording beside the transcript, the line being played
 * highlighted, the outcome and logs shown; a wrong key gets the API's own message. Loopback only.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { launchChromium, saveScreenshot } from '../support/browser.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually, startWebhookReceiver } from '../support/webhook-receiver.ts';

const api = apiClient();
const callsUrl = new URL('/console/calls.html', inject('baseUrl')).toString();
let org: TestOrganization;
let agent: { id: number; public_id: string };
let runName: string;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  org = await newOrganization('Console calls', 2);
  agent = (
    await api.request('POST', '/agents', {
      key: org.key,
      body: {
        name: 'Reminders',
        workflow_definition: { greeting: 'Hi, Smile clinic here.', steps: ['Can you come on Monday?'] },
      },
    })
  ).body;
  receiver = await startWebhookReceiver();
  const webhook = await api.request('POST', '/webhooks', {
    key: org.key,
    body: { url: receiver.url, events: ['call.completed'] },
  });
  expect(webhook.status).toBe(201);
  const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
    key: org.key,
    body: { phone_number: daytimeNumber(2, 3) },
  });
  expect(placed.status).toBe(200);
  runName = placed.body.workflow_run_name;
  await eventually(
    async () => {
      const run = await api.request('GET', `/agents/${agent.public_id}/conversations/${placed.body.workflow_run_id}`, {
        key: org.key,
      });
      return run.body.status === 'completed' ? run.body : undefined;
    },
    40_000,
    250,
  );
  browser = await launchChromium({ args: ['--autoplay-policy=no-user-gesture-required'] });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
});

describe.skipIf(needsLocalStack)('the calls page of the console (Chromium)', () => {
  it('refuses a wrong key with the API’s own message', async () => {
    const page = await browser.newPage();
    await page.goto(callsUrl);
    await page.getByLabel('API key').fill('vap_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/key/i);
    await page.close();
  });

  it('lists the calls, opens one, plays its recording beside the transcript with the line highlighted', async () => {
    const page = await browser.newPage();
    const offLoopback: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).hostname !== '127.0.0.1') offLoopback.push(request.url());
    });
    await page.goto(callsUrl);
    await page.getByLabel('API key').fill(org.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const table = page.getByRole('table', { name: 'Calls of the agent' });
    await table.getByRole('button', { name: runName }).waitFor();
    await saveScreenshot(page, 'console-calls');
    await table.getByRole('button', { name: runName }).click();

    await expect.poll(() => page.getByRole('heading', { level: 2 }).textContent()).toBe(runName);
    const transcript = page.getByRole('list', { name: 'Transcript' });
    await expect.poll(() => transcript.getByRole('listitem').count()).toBeGreaterThanOrEqual(3);
    expect(await transcript.getByRole('listitem').first().textContent()).toBe('Agent: Hi, Smile clinic here.');
    expect(await page.locator('dd').first().textContent()).toBe('completed');
    expect(await page.getByRole('list', { name: 'Logs' }).textContent()).toContain('Call answered');

    // The recording plays (a signed link, redirected to the bucket), and the line being said is marked.
    const player = page.getByLabel('Recording');
    await player.evaluate(async (element) => {
      const audio = element as unknown as { muted: boolean; play: () => Promise<void> };
      audio.muted = true;
      await audio.play();
    });
    await expect.poll(() => transcript.locator('li[aria-current="true"]').count(), { timeout: 15_000 }).toBe(1);
    expect(await player.evaluate((element) => (element as unknown as { duration: number }).duration)).toBeGreaterThan(
      2,
    );
    await saveScreenshot(page, 'console-call');
    expect(offLoopback).toEqual([]);
    await page.close();
  }, 60_000);

  it('creates a key (shown once) and revokes it: the revoked key is refused at once', async () => {
    const page = await browser.newPage();
    await page.goto(callsUrl);
    await page.getByLabel('API key').fill(org.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name of a new key').fill('Console test key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = await page.getByLabel('New API key').textContent();
    await saveScreenshot(page, 'console-keys');
    expect(shown).toMatch(/^vap_/);
    expect((await api.request('GET', '/agents', { key: shown! })).status).toBe(200);

    await page.getByRole('button', { name: 'Revoke Console test key' }).click();
    await page.getByRole('button', { name: 'Confirm: revoke Console test key' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Revoke Console test key' }).count()).toBe(0);
    expect((await api.request('GET', '/agents', { key: shown! })).status).toBe(401);
    // The console's own key still works.
    expect(await page.getByRole('table', { name: 'API keys of the organization' }).textContent()).toContain(
      'Console test key',
    );
    await page.close();
  });

  it("shows a webhook's deliveries, sends a test event and retries a delivery (same webhook-id)", async () => {
    // The call's call.completed reached the endpoint.
    await eventually(() => (receiver.received.length ? true : undefined));
    const page = await browser.newPage();
    await page.goto(callsUrl);
    await page.getByLabel('API key').fill(org.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Webhooks' }).click();
    const deliveries = page.getByRole('table', { name: 'Deliveries to the endpoint' });
    await expect.poll(() => deliveries.getByRole('row').count()).toBe(2);
    expect(await deliveries.getByRole('row').nth(1).textContent()).toMatch(/^call\.completeddelivered1204/);

    await page.getByRole('button', { name: 'Send a test event' }).click();
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toMatch(/^Test call\.completed delivered: the endpoint answered 204 in \d+ ms\.$/);

    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Retry call.completed' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('call.completed is being sent again.');
    await eventually(() => (receiver.received.length > before ? true : undefined));
    const ids = receiver.received.map((delivery) => delivery.headers['webhook-id']);
    // Sent again with the same webhook-id as the first time (receivers deduplicate on it).
    expect(ids.at(-1)).toBe(ids[0]);
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Refresh deliveries' }).click();
        return deliveries.getByRole('row').nth(1).textContent();
      })
      .toMatch(/^call\.completeddelivered2204/);
    await saveScreenshot(page, 'console-webhooks');
    await page.close();
  });
});
