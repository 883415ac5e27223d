/**
 * The console's latency views in a real headless Chromium: a call's turns as a waterfall beside its
 * transcript (the greeting's delay, the call's p50/p95, each tool call where it ran, a call without
 * figures), and an agent's p50/p95 per day (days without turns as gaps, an empty period). The
 * console signs in to the local stack; the run, its transcript and `GET /usage/latency` are answered
 * by the page's intercepted routes in the documented shapes. Loopback only.
 */
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { components } from '../../client/openapi.d.ts';
import type { LatencyPeriod, LatencyReport, RunWithLatency, TurnLatency } from '../../web/console/latency/shapes.ts';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { accessibilityViolations, launchChromium, saveScreenshot } from '../support/browser.ts';

const api = apiClient();
const consoleUrl = new URL('/console/', inject('baseUrl')).toString();
let org: TestOrganization;
let agent: { id: number; public_id: string };
let browser: Browser;
const offLoopback: string[] = [];

// Long ago, so that no call but the one ending now waits for its figures.
const ANSWERED_AT = Date.parse('2025-11-25T10:00:02.000Z');
const at = (ms: number) => new Date(ANSWERED_AT + ms).toISOString();

/** A call of six turns: two with tool calls (one with two), a slow endpointing, the figures summing up. */
const TURNS: (Omit<TurnLatency, 'voice_to_voice_ms'> & { said: string; answer: string })[] = [
  {
    turn: 1,
    at_ms: 5_300,
    transcription_ms: 140,
    endpointing_ms: 310,
    model_ms: 420,
    tools_ms: null,
    text_to_speech_ms: 180,
    overhead_ms: 12,
    tools: [],
    said: 'Hi, I would like to move my appointment.',
    answer: 'Of course. Which appointment is it?',
  },
  {
    turn: 2,
    at_ms: 14_200,
    transcription_ms: 150,
    endpointing_ms: 300,
    model_ms: 380,
    tools_ms: 230,
    text_to_speech_ms: 190,
    overhead_ms: 14,
    tools: [{ name: 'lookup_order', start_ms: 520, duration_ms: 230 }],
    said: 'It is booking 5521, the one on Monday.',
    answer: 'I found it: Monday at nine. When would suit you?',
  },
  {
    turn: 3,
    at_ms: 24_100,
    transcription_ms: 120,
    endpointing_ms: 290,
    model_ms: 510,
    tools_ms: null,
    text_to_speech_ms: 170,
    overhead_ms: 11,
    tools: [],
    said: 'Tuesday at ten works.',
    answer: 'Let me check Tuesday at ten.',
  },
  {
    turn: 4,
    at_ms: 33_800,
    transcription_ms: 160,
    endpointing_ms: 330,
    model_ms: 450,
    tools_ms: 640,
    text_to_speech_ms: 210,
    overhead_ms: 18,
    tools: [
      { name: 'check_slots', start_ms: 560, duration_ms: 410 },
      { name: 'send_sms', start_ms: 1_000, duration_ms: 230 },
    ],
    said: 'Great, and can you text me the new time?',
    answer: 'Done: Tuesday at ten, and the text is on its way.',
  },
  {
    turn: 5,
    at_ms: 45_600,
    transcription_ms: 130,
    endpointing_ms: 620,
    model_ms: 390,
    tools_ms: null,
    text_to_speech_ms: 160,
    overhead_ms: 9,
    tools: [],
    said: 'No, that is all, thank you.',
    answer: 'Thank you for calling. Goodbye!',
  },
  {
    turn: 6,
    at_ms: 52_300,
    transcription_ms: 110,
    endpointing_ms: 280,
    model_ms: 300,
    tools_ms: null,
    text_to_speech_ms: 150,
    overhead_ms: 10,
    tools: [],
    said: 'Bye.',
    answer: 'Bye!',
  },
];
const turns: TurnLatency[] = TURNS.map(({ said: _said, answer: _answer, ...turn }) => ({
  ...turn,
  voice_to_voice_ms:
    turn.transcription_ms! +
    turn.endpointing_ms! +
    turn.model_ms! +
    (turn.tools_ms ?? 0) +
    turn.text_to_speech_ms! +
    turn.overhead_ms!,
}));

const segments: components['schemas']['Transcript']['segments'] = [
  { role: 'assistant', text: 'Hi, Smile clinic here. How can I help?', start: at(412), end: at(3_900) },
  ...TURNS.flatMap((turn, index) => [
    { role: 'user' as const, text: turn.said, start: at(turn.at_ms - 1_800), end: at(turn.at_ms) },
    {
      role: 'assistant' as const,
      text: turn.answer,
      start: at(turn.at_ms + turns[index]!.voice_to_voice_ms!),
      end: at(turn.at_ms + turns[index]!.voice_to_voice_ms! + 2_500),
    },
  ]),
];

/** A run as `GET …/conversations/{id}` gives it, with `latency` as documented. */
function runOf(id: number, overrides: Partial<RunWithLatency>): RunWithLatency {
  return {
    id,
    workflow_id: agent.id,
    definition_id: 1,
    name: `Call ${id}`,
    mode: 'phone',
    status: 'completed',
    phone_number: '+48601234567',
    created_at: at(-6_000),
    answered_at: at(0),
    ended_at: at(58_000),
    duration_seconds: 58,
    initial_context: {},
    gathered_context: { call_disposition: 'rescheduled' },
    analysis: null,
    cost: { currency: 'USD', platform_usd: 0.058, telephony_usd: 0.0126, total_usd: 0.0706 },
    download_urls_expire_at: null,
    logs: [
      { level: 'info', message: 'Call answered', timestamp: at(0) },
      { level: 'info', message: 'Call ended: the caller hung up', timestamp: at(58_000) },
    ],
    recording_download_url: null,
    recording_url: null,
    transcript_download_url: null,
    transcript_url: null,
    sms: [],
    latency: null,
    flow: null,
    ...overrides,
  };
}

const LATENCY: RunWithLatency['latency'] = {
  greeting_ms: 412,
  turns,
  summary: {
    turn_count: 6,
    voice_to_voice_ms: { p50: 1_101, p95: 1_808 },
    transcription_ms: { p50: 130, p95: 160 },
    endpointing_ms: { p50: 300, p95: 620 },
    model_ms: { p50: 390, p95: 510 },
    tools_ms: { p50: 230, p95: 640 },
    text_to_speech_ms: { p50: 170, p95: 210 },
    overhead_ms: { p50: 11, p95: 18 },
  },
};

const json = (route: Route, body: unknown) =>
  route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });

/** The page answers these runs (and their transcripts) itself; everything else goes to the stack. */
async function serveRuns(page: Page, runs: RunWithLatency[]): Promise<void> {
  await page.route(
    (url) => /\/conversations\/\d+(\/transcript)?$/.test(url.pathname),
    (route) => {
      const { pathname } = new URL(route.request().url());
      const run = runs.find((candidate) => pathname.includes(`/conversations/${candidate.id}`));
      if (!run) return route.fallback();
      return pathname.endsWith('/transcript')
        ? json(route, {
            run_id: run.id,
            segments,
            download_url: 'https://example.invalid/t',
            expires_at: at(3_600_000),
          })
        : json(route, run);
    },
  );
}

beforeAll(async () => {
  org = await newOrganization('Latency console');
  const created = await api.request('POST', '/agents', { key: org.key, body: { name: 'Smile reception' } });
  expect(created.status).toBe(201);
  agent = created.body;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** A console page signed in with the organization's key. */
async function signedIn(): Promise<Page> {
  const page = await browser.newPage();
  page.on('request', (request) => {
    if (new URL(request.url()).hostname !== '127.0.0.1') offLoopback.push(request.url());
  });
  await page.goto(consoleUrl);
  await page.getByLabel('API key').fill(org.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return page;
}

describe.skipIf(needsLocalStack)('the console’s latency views (Chromium)', () => {
  it('draws each turn of a call as a waterfall beside its transcript, with the call’s p50/p95', async () => {
    const page = await signedIn();
    await serveRuns(page, [runOf(4_201, { latency: LATENCY })]);
    await page.goto(`${consoleUrl}#/calls/${agent.public_id}/4201`);
    const waterfall = page.getByRole('table', { name: 'Latency of each agent turn' });
    await expect.poll(() => waterfall.getByRole('row').count()).toBe(7);

    const summary = page.getByLabel('Latency summary');
    expect(await summary.textContent()).toBe(
      'Greeting delay412 msAgent turns6Voice-to-voicep50 1,101 ms · p95 1,808 ms',
    );
    const percentiles = page.getByRole('table', { name: 'Latency percentiles of the call' });
    expect(await percentiles.getByRole('row', { name: /^Endpointing/ }).textContent()).toBe('Endpointing300 ms620 ms');
    expect(await percentiles.getByRole('row', { name: /^Tools/ }).textContent()).toBe('Tools230 ms640 ms');

    // Each bar is an image named with its figures, in order, for a screen reader.
    const bars = waterfall.getByRole('img');
    expect(await bars.first().getAttribute('aria-label')).toBe(
      'Turn 1. Voice-to-voice 1,062 ms: transcription 140 ms, endpointing 310 ms, model 420 ms, tools —, ' +
        'text-to-speech 180 ms, overhead 12 ms',
    );
    // A tool call is drawn where it ran, inside the model's time; the caller's words head the row.
    const secondRow = waterfall.getByRole('row').nth(2);
    expect(await secondRow.getByRole('cell').nth(1).textContent()).toBe('It is booking 5521, the one on Monday.');
    expect(await secondRow.locator('rect title').allTextContents()).toEqual([
      'Transcription: 150 ms',
      'Endpointing: 300 ms',
      'Model: 70 ms',
      'Tool lookup_order: 230 ms',
      'Model: 310 ms',
      'Text-to-speech: 190 ms',
      'Overhead: 14 ms',
    ]);
    expect(await secondRow.getByRole('cell').last().textContent()).toBe('1,264 ms');
    // Every row shares one scale: the slowest turn (1,808 ms) fills most of an axis that ends at 2 s.
    expect(await waterfall.locator('.latency-axis text').allTextContents()).toEqual([
      '0',
      '0.5 s',
      '1 s',
      '1.5 s',
      '2 s',
    ]);

    // The transcript marks each answer with its turn's time; the greeting is not a turn.
    const transcript = page.getByRole('list', { name: 'Transcript' });
    const lines = await transcript.getByRole('listitem').allTextContents();
    expect(lines[0]).toBe('Agent: Hi, Smile clinic here. How can I help?');
    expect(lines[2]).toBe('Agent: Of course. Which appointment is it? answered in 1.06 s');
    expect(lines[8]).toBe('Agent: Done: Tuesday at ten, and the text is on its way. answered in 1.81 s');

    await saveScreenshot(page, 'console-call-latency');

    // The figures behind the bars, opened from the keyboard.
    await page.getByText('Each turn’s figures').focus();
    await page.keyboard.press('Enter');
    const figures = page.getByRole('table', { name: 'Latency of each turn by component' });
    await figures.waitFor();
    expect(await figures.getByRole('row').nth(4).textContent()).toBe(
      '4160 ms330 ms450 ms640 ms210 ms18 ms1,808 mscheck_slots 410 ms (from 560 ms), send_sms 230 ms (from 1,000 ms)',
    );
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(offLoopback).toEqual([]);
    await page.close();
  });

  it('says why a call has no figures: still in progress, never connected, or none kept', async () => {
    const page = await signedIn();
    await serveRuns(page, [
      runOf(4_202, { status: 'in_progress', ended_at: null, duration_seconds: null, latency: null }),
      runOf(4_203, { status: 'no_answer', answered_at: null, duration_seconds: 0, latency: null }),
      // A run served without the field (kept before the figures were measured).
      runOf(4_204, {}),
    ]);
    await page.goto(`${consoleUrl}#/calls/${agent.public_id}/4202`);
    const section = page.getByRole('region', { name: 'Response latency' });
    await expect
      .poll(() => section.textContent())
      .toBe('Response latencyEach turn’s latency is shown here once the call ends.');
    await page.goto(`${consoleUrl}#/calls/${agent.public_id}/4203`);
    await expect
      .poll(() => section.textContent())
      .toBe('Response latencyNo latency figures: the call never connected.');
    await page.goto(`${consoleUrl}#/calls/${agent.public_id}/4204`);
    await expect.poll(() => section.textContent()).toBe('Response latencyNo latency figures were kept for this call.');
    expect(await page.getByRole('table', { name: 'Latency of each agent turn' }).count()).toBe(0);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.close();
  });

  it('reads the figures of a call that has just ended again until they are there, not its recording', async () => {
    const page = await signedIn();
    const endedAt = new Date(Date.now() - 2_000).toISOString();
    let reads = 0;
    // The second read is answered only once the test has seen the first one's state, so the
    // assertion does not race the console's re-read on a busy machine.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(
      (url) => /\/conversations\/4205(\/transcript)?$/.test(url.pathname),
      async (route) => {
        if (route.request().url().endsWith('/transcript'))
          return json(route, {
            run_id: 4_205,
            segments,
            download_url: 'https://example.invalid/t',
            expires_at: endedAt,
          });
        reads += 1;
        if (reads > 1) await released;
        // The figures are written as the call ends: the first read may come before them.
        return json(
          route,
          runOf(4_205, {
            ended_at: endedAt,
            latency: reads === 1 ? null : LATENCY,
            // A fresh link at every read, as the API signs them.
            recording_download_url: new URL(`recording-${reads}.wav`, consoleUrl).toString(),
          }),
        );
      },
    );
    await page.goto(`${consoleUrl}#/calls/${agent.public_id}/4205`);
    const section = page.getByRole('region', { name: 'Response latency' });
    await expect
      .poll(() => section.textContent())
      .toBe('Response latencyThe call has just ended: its latency figures are on their way.');
    release();
    const waterfall = page.getByRole('table', { name: 'Latency of each agent turn' });
    await expect.poll(() => waterfall.getByRole('row').count()).toBe(7);
    expect(reads).toBe(2);
    // Only the figures are read again: the player keeps the link it loaded.
    expect(await page.getByLabel('Recording').getAttribute('src')).toMatch(/recording-1\.wav$/);
    await page.close();
  });

  it('charts an agent’s p50/p95 per day from GET /usage/latency, with gaps on days without turns', async () => {
    const page = await signedIn();
    const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
    const day = (back: number) => new Date(today - back * 86_400_000).toISOString().slice(0, 10);
    // Weekdays of the last four weeks, slower on the days the booking tool was slow.
    const items: LatencyPeriod[] = Array.from({ length: 30 }, (_, back) => 29 - back)
      .filter((back) => back % 7 !== 2 && back % 7 !== 3)
      .map((back, index) => {
        const slow = index % 6 === 4 ? 1.4 : 1;
        const p = (p50: number, p95: number) => ({ p50: Math.round(p50 * slow), p95: Math.round(p95 * slow) });
        return {
          period: day(back),
          agent_id: agent.id,
          turn_count: 80 + ((index * 37) % 90),
          voice_to_voice_ms: p(960 + ((index * 13) % 80), 1_650 + ((index * 29) % 160)),
          transcription_ms: p(130, 250 + (index % 3) * 10),
          endpointing_ms: p(300, 330),
          model_ms: p(400 + ((index * 7) % 40), 880 + ((index * 11) % 90)),
          tools_ms: p(210, 620),
          text_to_speech_ms: p(170, 300),
          overhead_ms: { p50: 11, p95: 24 },
        };
      });
    const asked: URLSearchParams[] = [];
    await page.route(
      (url) => url.pathname.endsWith('/usage/latency'),
      (route) => {
        const query = new URL(route.request().url()).searchParams;
        asked.push(query);
        const report: LatencyReport = {
          from: query.get('from')!,
          to: query.get('to')!,
          group_by: 'day',
          items: items.filter((item) => item.period >= query.get('from')! && item.period < query.get('to')!),
        };
        return json(route, report);
      },
    );
    await page.goto(`${consoleUrl}#/agents/${agent.public_id}`);
    const section = page.getByRole('region', { name: 'Response latency' });
    await expect.poll(() => section.locator('.uplot canvas').count()).toBe(2);
    expect(Object.fromEntries(asked[0]!)).toEqual({
      agent_id: String(agent.id),
      from: day(29),
      to: new Date(today + 86_400_000).toISOString().slice(0, 10),
      group_by: 'day',
    });
    const turnCount = items.reduce((sum, item) => sum + item.turn_count, 0);
    expect(await section.getByLabel('Latency totals').textContent()).toBe(
      `${turnCount.toLocaleString('en-US')} turns on ${items.length} of 30 days`,
    );
    await saveScreenshot(page, 'console-agent-latency', section);
    await section.getByText('Figures per day (p50 / p95, in ms)').click();
    const perDay = section.getByRole('table', { name: 'Latency per day' });
    expect(await perDay.getByRole('row').count()).toBe(items.length + 1);
    expect(await perDay.getByRole('row').nth(1).textContent()).toBe(
      `${items[0]!.period}80960 / 1,650130 / 250300 / 330400 / 880210 / 620170 / 30011 / 24`,
    );
    await section.getByLabel('Percentile').selectOption('p95');
    expect(await section.getByRole('img', { name: /^Each component's p95 per day/ }).count()).toBe(1);
    expect(await accessibilityViolations(page)).toEqual([]);

    // A period without turns says so, and draws nothing.
    await section.getByLabel('From').fill('2025-01-01');
    await section.getByLabel('To').fill('2025-01-31');
    await expect.poll(() => asked.at(-1)?.get('to')).toBe('2025-02-01');
    await expect.poll(() => section.getByText('No agent turns from 2025-01-01 to 2025-01-31.').count()).toBe(1);
    expect(await section.locator('.uplot canvas').count()).toBe(0);
    expect(offLoopback).toEqual([]);
    await page.close();
  });
});
