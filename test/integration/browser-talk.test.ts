/**
 * Talking to an agent inside the console, in a real headless Chromium, signed in once: its fake
 * microphone plays a WAV file of the local synthetic speech, the talk panel sends it over the
 * session WebSocket, and the agent's audio comes back and plays (the Talk section); a chat opened
 * in place on the agent's page, and one with a draft version of its definition. Loopback only.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { synthesizeSpeech } from '../../media/src/audio/tones.ts';
import { encodeWav } from '../../media/src/audio/wav.ts';
import type { Agent } from '../../shared/schemas/agents.ts';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { accessibilityViolations, launchChromium, saveScreenshot } from '../support/browser.ts';

const api = apiClient();
const consoleUrl = new URL('/console/', inject('baseUrl')).toString();
let org: TestOrganization;
let agent: Agent;
let browser: Browser;
let workDir: string;

/** Silence, then the caller's lines with pauses between them (8 kHz, 16-bit: what Chromium plays as the microphone). */
function callerRecording(script: (string | number)[]): Buffer {
  const parts = script.map((part) =>
    typeof part === 'number' ? new Int16Array(Math.round(part * 8)) : synthesizeSpeech(part),
  );
  const samples = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    samples.set(part, offset);
    offset += part.length;
  }
  return encodeWav(samples, 8000);
}

beforeAll(async () => {
  org = await newOrganization('Browser talk', 10);
  agent = (
    await api.request('POST', '/agents', {
      key: org.key,
      body: {
        name: 'Front desk',
        workflow_definition: {
          greeting: 'Hi, this is Ann from Smile.',
          prompt: 'You answer questions about the clinic.',
          closing: 'Thanks for calling. Bye.',
        },
        workflow_configurations: { silence_timeout_seconds: 20 },
      },
    })
  ).body;
  await api.request('POST', `/agents/${agent.public_id}/knowledge-base/documents`, {
    key: org.key,
    body: { title: 'Hours', content: 'Opening hours: Monday to Friday, 8:00 to 16:00.' },
  });
  workDir = await mkdtemp(join(tmpdir(), 'browser-talk-'));
  const microphone = join(workDir, 'caller.wav');
  // The pauses leave the greeting and the answer time to play first on a loaded machine (CI's four
  // workers on two cores): a caller who speaks over them cuts them, and the transcript differs.
  await writeFile(
    microphone,
    callerRecording([5000, 'What are your opening hours?', 6500, 'Thank you, goodbye.', 60_000]),
  );
  browser = await launchChromium({
    fakeMicrophoneWav: microphone,
    // Peer-to-peer WebRTC on loopback: Chromium offers 127.0.0.1 as a candidate, unmasked by mDNS.
    args: ['--allow-loopback-in-peer-connection', '--disable-features=WebRtcHideLocalIpsWithMdns'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** A console page signed in with the organization's key (the only time it is typed), at `#/<route>`. */
async function signedIn(route: string): Promise<Page> {
  const page = await browser.newPage();
  // Every request the page makes stays on loopback.
  page.on('request', (request) => expect(new URL(request.url()).hostname).toBe('127.0.0.1'));
  await page.goto(`${consoleUrl}#/${route}`);
  await page.getByLabel('API key').fill(org.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return page;
}

/** The talk panel, by its heading. */
const talkPanel = (page: Page): Locator => page.getByRole('region', { name: 'Talk to Front desk' });

const conversationIdOf = async (panel: Locator) =>
  Number(/conversation (\d+)/.exec((await panel.getByRole('status').textContent()) ?? '')?.[1]);

const completedRun = (id: number) =>
  vi.waitFor(
    async () => {
      const response = await api.request('GET', `/agents/${agent.public_id}/conversations/${id}`, { key: org.key });
      expect(response.body.status).toBe('completed');
      return response.body;
    },
    { timeout: 15_000, interval: 200 },
  );

describe.skipIf(needsLocalStack)('talking to an agent from Chromium (the console)', () => {
  it.each([
    ['Talk (microphone)', 'webrtc'],
    ['Talk over WebRTC', 'smallwebrtc'],
  ])(
    'voice (%s: %s): the microphone reaches the agent, its answers play, and the run ends completed with a recording',
    async (button, mode) => {
      const page = await signedIn('talk');
      await page.getByLabel('Agent', { exact: true }).selectOption(agent.public_id);
      const panel = talkPanel(page);
      await panel.getByLabel(/Raw microphone/).check();
      await panel.getByRole('button', { name: button }).click();
      await expect.poll(() => panel.getByRole('status').textContent()).toMatch(/^Connected: conversation \d+$/);
      const id = await conversationIdOf(panel);
      // The caller says goodbye, the agent closes the conversation.
      await expect
        .poll(() => panel.getByRole('status').textContent(), { timeout: 30_000 })
        .toBe(`Ended: conversation ${id}`);
      const lines = await panel.getByRole('list', { name: 'Transcript' }).getByRole('listitem').allTextContents();
      expect(lines).toEqual([
        'Agent: Hi, this is Ann from Smile.',
        'You: What are your opening hours?',
        expect.stringMatching(/^Agent: .*8:00 to 16:00/),
        'You: Thank you, goodbye.',
        'Agent: Thanks for calling. Bye.',
      ]);
      const stats = (await page.evaluate('window.voiceSession.stats')) as { framesSent: number; framesPlayed: number };
      // The agent's three answers, played: one 20 ms frame per character of the local speech.
      expect(stats.framesPlayed).toBeGreaterThan(
        'Hi, this is Ann from Smile.'.length + 'Thanks for calling. Bye.'.length + 20,
      );
      expect(stats.framesSent).toBeGreaterThan(400); // more than 8 s of microphone
      // The ended conversation's page, in the same console.
      await panel.getByRole('link', { name: `Open conversation ${id}` }).click();
      await expect.poll(() => page.getByLabel('Call status').textContent()).toBe('completed');
      await page.close();

      const run = await completedRun(id);
      expect(run).toMatchObject({
        mode,
        recording_url: expect.any(String),
        definition_id: agent.current_definition_id,
      });
      const transcript = await api.request('GET', `/agents/${agent.public_id}/conversations/${id}/transcript`, {
        key: org.key,
      });
      expect(transcript.body.segments.map((segment: { text: string }) => segment.text)).toEqual([
        'Hi, this is Ann from Smile.',
        'What are your opening hours?',
        expect.stringContaining('8:00 to 16:00'),
        'Thank you, goodbye.',
        'Thanks for calling. Bye.',
      ]);
      const recording = await fetch(run.recording_download_url);
      expect((await recording.arrayBuffer()).byteLength).toBeGreaterThan(44 + 8 * 8000); // 8 s and more of audio
    },
    60_000,
  );

  it("chat opened in place on the agent's page, signed in once: messages, answers, what the agent did, the end", async () => {
    const page = await signedIn('agents');
    await page.getByRole('link', { name: 'Front desk', exact: true }).click();
    const open = page.getByRole('button', { name: 'Talk or chat' });
    expect(await open.getAttribute('aria-expanded')).toBe('false');
    await open.click();
    expect(await open.getAttribute('aria-expanded')).toBe('true');
    const panel = talkPanel(page);
    await panel.getByRole('button', { name: 'Chat' }).click();
    const transcript = panel.getByRole('list', { name: 'Transcript' }).getByRole('listitem');
    await expect.poll(() => transcript.allTextContents()).toEqual(['Agent: Hi, this is Ann from Smile.']);
    const id = await conversationIdOf(panel);
    // The message field has the focus once the chat is connected.
    await page.keyboard.type('What are your opening hours?');
    await page.keyboard.press('Enter');
    await expect.poll(() => transcript.count()).toBe(3);
    expect(await transcript.nth(2).textContent()).toMatch(/^Agent: .*8:00 to 16:00/);
    await panel.getByLabel('Message').fill('Thank you, goodbye.');
    await panel.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => panel.getByRole('status').textContent()).toBe(`Ended: conversation ${id}`);
    expect(await panel.getByRole('list', { name: 'Agent activity' }).getByRole('listitem').allTextContents()).toEqual([
      'Knowledge: Hours',
      'Tool end_call({}) → {"ok":true}',
    ]);
    expect(await panel.getByLabel('Message').count()).toBe(0);
    // The panel as it ends (transcript, activity, the conversation's link) meets WCAG 2 A and AA.
    expect(await accessibilityViolations(page)).toEqual([]);
    await saveScreenshot(page, 'console-talk', panel);
    expect(await completedRun(id)).toMatchObject({ mode: 'chat', definition_id: agent.current_definition_id });

    // The Talk section of the same console: no second sign-in.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Talk to an agent' }).click();
    await talkPanel(page).getByRole('button', { name: 'Chat' }).waitFor();
    expect(await page.getByLabel('API key').count()).toBe(0);
    await page.close();
  }, 30_000);

  it('closing the panel during a chat hangs up: the conversation completes', async () => {
    const page = await signedIn(`agents/${agent.public_id}`);
    await page.getByRole('button', { name: 'Talk or chat' }).click();
    const panel = talkPanel(page);
    await panel.getByRole('button', { name: 'Chat' }).click();
    await expect.poll(() => panel.getByRole('status').textContent()).toMatch(/^Connected: conversation \d+$/);
    const id = await conversationIdOf(panel);
    // During the chat: the agent has greeted (the session is under way, not still being admitted).
    await panel.getByRole('list', { name: 'Transcript' }).getByRole('listitem').first().waitFor();
    await page.getByRole('button', { name: 'Talk or chat' }).click();
    expect(await panel.count()).toBe(0);
    expect(await completedRun(id)).toMatchObject({ mode: 'chat' });
    await page.close();
  }, 30_000);

  it('chats with a draft version of the definition (`#/talk/<agent>/<definition_id>`); the agent keeps its current one', async () => {
    const draft = await api.request('POST', `/agents/${agent.public_id}/definitions`, {
      key: org.key,
      body: {
        workflow_definition: {
          greeting: 'Hello, Ann here, trying something new.',
          prompt: 'You answer questions about the clinic.',
          closing: 'Thanks for calling. Bye.',
        },
        note: 'A new greeting',
      },
    });
    expect(draft.status).toBe(201);
    const page = await signedIn(`talk/${agent.public_id}/${draft.body.id}`);
    const panel = talkPanel(page);
    expect(await panel.textContent()).toContain(`Runs version ${draft.body.id} of the definition`);
    await panel.getByRole('button', { name: 'Chat' }).click();
    const transcript = panel.getByRole('list', { name: 'Transcript' }).getByRole('listitem');
    await expect.poll(() => transcript.allTextContents()).toEqual(['Agent: Hello, Ann here, trying something new.']);
    const id = await conversationIdOf(panel);
    await panel.getByRole('button', { name: 'End', exact: true }).click();
    await expect.poll(() => panel.getByRole('status').textContent()).toBe(`Ended: conversation ${id}`);
    expect(await completedRun(id)).toMatchObject({ mode: 'chat', definition_id: draft.body.id });
    const after = await api.request('GET', `/agents/${agent.public_id}`, { key: org.key });
    expect(after.body.current_definition_id).toBe(agent.current_definition_id);
    await page.close();
  }, 30_000);
});
