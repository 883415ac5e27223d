/**
 * The console's Tests tab in a real headless Chromium: two test cases made with the form (persona,
 * script, expectations of two kinds; no JSON), run against the published version with its
 * progress, one passing and one failing, each failed expectation's reason next to the transcript
 * line it is about (or under the conversation when it is about the whole of it); axe finds
 * nothing; a case edited in the same form (its goal, an HTTP tool's mocked answer added, then
 * changed), saved in place; "make a test from this call" on a conversation's page drafts a case into
 * the same form, edited and saved. Against the local stack's chat and model fakes. Loopback only.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { accessibilityViolations, launchChromium, saveScreenshot } from '../support/browser.ts';

const api = apiClient();
const consoleUrl = new URL('/console/', inject('baseUrl')).toString();
const GREETING = 'Hello, North Clinic here. This call is recorded.';
let org: TestOrganization;
let browser: Browser;
let agentId: string;
const offLoopback: string[] = [];
/** The page's API requests and their answers, in order (told when a case never shows). */
const apiTrail: string[] = [];

beforeAll(async () => {
  org = await newOrganization('Console agent tests', 6);
  const created = await api.request<{ public_id: string }>('POST', '/agents', {
    key: org.key,
    body: {
      name: 'North Clinic',
      workflow_definition: { prompt: 'You book visits at North Clinic.', greeting: GREETING },
    },
  });
  expect(created.status, created.text).toBe(201);
  agentId = created.body.public_id;
  // A tool the edited case mocks (the caller's words never make the local model call it).
  const tool = await api.request('POST', `/agents/${agentId}/tools`, {
    key: org.key,
    body: { name: 'find_slots', description: 'Free slots on a day', method: 'GET', url: 'http://127.0.0.1:9/slots' },
  });
  expect(tool.status, tool.text).toBe(201);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function testsTab(): Promise<Page> {
  const page = await browser.newPage();
  page.on('request', (request) => {
    if (new URL(request.url()).hostname !== '127.0.0.1') offLoopback.push(request.url());
  });
  const started = Date.now();
  const at = () => `${((Date.now() - started) / 1000).toFixed(2)} s`;
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (url.pathname.includes('/api/'))
      apiTrail.push(`${at()} ${response.request().method()} ${url.pathname} ${response.status()}`);
  });
  page.on('requestfailed', (request) => void apiTrail.push(`${at()} ${request.method()} ${request.url()} failed`));
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${consoleUrl}#/agents/${agentId}`);
  await page.getByLabel('API key').fill(org.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Tests' }).click();
  await page.getByRole('heading', { name: 'Tests of North Clinic' }).waitFor();
  return page;
}

/** Fills the new case form: the caller, a script of one turn, the expectations (kind, text, ticked). */
async function addCase(
  page: Page,
  name: string,
  expectations: { kind: string; text: string; ticked?: boolean }[],
): Promise<void> {
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('The caller: who they are').fill('Ewa, a patient');
  await page.getByLabel('What they want').fill('A visit on Monday');
  await page
    .getByLabel('Script: what they say, one turn a line (empty: the model plays them)')
    .fill('A visit on Monday, please');
  await page.getByLabel('At most this many caller turns').fill('2');
  for (const [i, expectation] of expectations.entries()) {
    const n = i + 1;
    if (n > 1) await page.getByRole('button', { name: 'Add an expectation' }).click();
    await page.getByLabel(`Expectation ${n}: kind`).selectOption({ label: expectation.kind });
    await page.getByLabel(new RegExp(`^Expectation ${n}: (phrase|criteria in words)$`)).fill(expectation.text);
    if (expectation.ticked === false)
      await page
        .getByRole('group', { name: `Expectation ${n}` })
        .getByRole('checkbox')
        .uncheck();
  }
  await page.getByRole('button', { name: 'Save test case' }).click();
  await page
    .getByRole('table', { name: 'Test cases' })
    .getByRole('cell', { name, exact: true })
    .waitFor()
    .catch(async (error: unknown) => {
      const form = {
        name: await page.getByLabel('Name', { exact: true }).inputValue(),
        error: await page.getByRole('alert').allTextContents(),
        invalid: await page.locator('form :invalid').evaluateAll((fields) => fields.map((field) => field.id)),
      };
      throw new Error(`case ${name} never showed; form ${JSON.stringify(form)}; API: ${apiTrail.join(' | ')}`, {
        cause: error,
      });
    });
  // The form is cleared for the next case once the list has been read again (the mutation's end).
  await expect.poll(() => page.getByLabel('Name', { exact: true }).inputValue()).toBe('');
}

describe.skipIf(needsLocalStack)('the Tests tab (Chromium)', () => {
  it('creates two cases with the form, runs them, shows one pass and one fail with reasons in place', async () => {
    const page = await testsTab();
    await addCase(page, 'Recording notice', [{ kind: 'The agent says a phrase', text: 'this call is recorded' }]);
    await addCase(page, 'No notice, mortgages', [
      { kind: 'The agent says a phrase', text: 'this call is recorded', ticked: false },
      { kind: 'Judged by the model', text: 'The agent mentions mortgages' },
    ]);
    // Stored as the form said: no JSON typed anywhere.
    const stored = (await api.request('GET', `/agents/${agentId}/tests`, { key: org.key })).body.items;
    expect(stored.find((item: { name: string }) => item.name === 'No notice, mortgages')).toMatchObject({
      caller: { persona: 'Ewa, a patient', goal: 'A visit on Monday', script: ['A visit on Monday, please'] },
      max_turns: 2,
      expectations: [
        { type: 'phrase_said', phrase: 'this call is recorded', said: false },
        { type: 'judged', criteria: 'The agent mentions mortgages' },
      ],
    });

    await page.getByLabel('Against').selectOption({ label: 'The published version' });
    await page.getByRole('button', { name: 'Run all tests' }).click();
    await page.getByLabel(/of 2 cases done/).waitFor();
    await page.getByRole('heading', { name: /^Test run \d+ of version \d+: completed$/ }).waitFor({ timeout: 90_000 });
    expect(await page.getByText('2 of 2 cases done').count()).toBe(1);
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'passed,' }).textContent())
      .toContain('1 passed, 1 failed, 0 errors');

    const passing = page.getByRole('article', { name: 'Case Recording notice' });
    expect(await passing.getByRole('heading').textContent()).toBe('Recording notice: passed');
    const passingGreeting = passing
      .getByRole('list', { name: 'Transcript of attempt 1' })
      .getByRole('listitem')
      .first();
    expect(await passingGreeting.textContent()).toContain(`Agent: ${GREETING}`);
    expect(await passingGreeting.textContent()).toContain('✓ Passed (phrase said): the agent said:');

    const failing = page.getByRole('article', { name: 'Case No notice, mortgages' });
    expect(await failing.getByRole('heading').textContent()).toBe('No notice, mortgages: failed');
    const lines = failing.getByRole('list', { name: 'Transcript of attempt 1' }).locator(':scope > li');
    // The phrase that must never be said: failed, next to the greeting that said it.
    const greeting = await lines.first().textContent();
    expect(greeting).toContain(`Agent: ${GREETING}`);
    expect(greeting).toContain(`✗ Failed (phrase said): the agent said: "${GREETING}"`);
    expect(await lines.nth(1).textContent()).toContain('Caller: A visit on Monday, please');
    expect(await lines.nth(1).locator('.verdicts').count()).toBe(0);
    // Beside the caller's turn, how long the agent took to answer it (the attempt's turn_latencies_ms).
    const answered = /^ \(answered in (\d+) ms\)$/.exec((await lines.nth(1).locator('.turn-latency').textContent())!);
    const testRunId = /^Test run (\d+)/.exec(
      (await page.getByRole('heading', { name: /^Test run / }).textContent())!,
    )![1];
    const storedRun = (await api.request('GET', `/agents/${agentId}/test-runs/${testRunId}`, { key: org.key })).body;
    const storedAttempt = storedRun.cases.find((each: { name: string }) => each.name === 'No notice, mortgages')
      .attempts[0];
    expect(Number(answered?.[1])).toBe(storedAttempt.turn_latencies_ms[0]);
    expect(await lines.first().locator('.turn-latency').count()).toBe(0);
    // The judged criterion is about the whole conversation: under it, with the model's reason.
    const overall = await failing.locator(':scope .verdicts').last().textContent();
    expect(overall).toMatch(/✗ Failed \(judged\): .*mortgages/);

    await saveScreenshot(page, 'agent-tests-tab');
    expect(await accessibilityViolations(page)).toEqual([]);

    // A case edited in place: the form holds it as stored; a tool's answer added, then changed.
    const storedCase = async (name: string) =>
      (await api.request('GET', `/agents/${agentId}/tests`, { key: org.key })).body.items.find(
        (item: { name: string }) => item.name === name,
      );
    const before = await storedCase('Recording notice');
    await page.getByRole('button', { name: 'Edit Recording notice' }).click();
    await page.getByRole('heading', { name: 'Edit test case: Recording notice' }).waitFor();
    expect(await page.getByLabel('What they want').inputValue()).toBe('A visit on Monday');
    expect(await page.getByLabel('Expectation 1: phrase').inputValue()).toBe('this call is recorded');
    await page.getByLabel('What they want').fill('A visit on Tuesday');
    await page.getByRole('button', { name: 'Add a tool answer' }).click();
    await page.getByLabel('Mock 1: tool').selectOption('find_slots');
    await page.getByLabel('Mock 1: what it answers (JSON or text)').fill('{"slots": ["Tuesday 9:00"]}');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'New test case' }).waitFor();
    const edited = await storedCase('Recording notice');
    expect(edited).toMatchObject({
      id: before.id,
      caller: { ...before.caller, goal: 'A visit on Tuesday' },
      tool_mocks: [{ tool: 'find_slots', status: 200, body: { slots: ['Tuesday 9:00'] } }],
      expectations: before.expectations,
      max_turns: before.max_turns,
    });
    await page.getByRole('button', { name: 'Edit Recording notice' }).click();
    expect(await page.getByLabel('Mock 1: what it answers (JSON or text)').inputValue()).toBe(
      '{"slots":["Tuesday 9:00"]}',
    );
    await page.getByLabel('Mock 1: HTTP status').fill('503');
    await page.getByLabel('Mock 1: what it answers (JSON or text)').fill('down for maintenance');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'New test case' }).waitFor();
    expect((await storedCase('Recording notice')).tool_mocks).toEqual([
      { tool: 'find_slots', status: 503, body: 'down for maintenance' },
    ]);

    // "Make a test from this call" on the conversation's page: the draft in the form, edited, saved.
    await passing.getByRole('link', { name: 'The conversation' }).click();
    await page.getByRole('button', { name: 'Make a test from this call' }).click();
    const script = page.getByLabel('Script: what they say, one turn a line (empty: the model plays them)');
    await expect.poll(() => script.inputValue()).toBe('A visit on Monday, please');
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toMatch(/^From conversation \d+: Test: /);
    await page.getByLabel('Name', { exact: true }).fill('Monday visit, from a call');
    await page.getByLabel('Expectation 1: kind').selectOption({ label: 'The agent says a phrase' });
    await page.getByLabel('Expectation 1: phrase').fill('this call is recorded');
    await page.getByRole('button', { name: 'Save test case' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    const fromCall = (await api.request('GET', `/agents/${agentId}/tests?tag=from-call`, { key: org.key })).body;
    expect(fromCall.items).toEqual([
      expect.objectContaining({
        name: 'Monday visit, from a call',
        caller: expect.objectContaining({ script: ['A visit on Monday, please'] }),
        max_turns: 2,
        expectations: [{ type: 'phrase_said', phrase: 'this call is recorded', said: true }],
      }),
    ]);
    expect(offLoopback).toEqual([]);
  }, 150_000);
});
