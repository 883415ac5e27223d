/**
 * A real headless Chromium talks to an agent through the console page: its fake microphone plays
 * a WAV file of the local synthetic speech, the page sends it over the session WebSocket, and the
 * agent's audio comes back and plays. Then a chat through the same page. Loopback only.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { synthesizeSpeech } from '../../media/src/audio/tones.ts';
import { encodeWav } from '../../media/src/audio/wav.ts';
import type { Agent } from '../../shared/schemas/agents.ts';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { launchChromium } from '../support/browser.ts';

const api = apiClient();
const consoleUrl = new URL('/console/talk.html', inject('baseUrl')).toString();
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
  await writeFile(
    microphone,
    callerRecording([3000, 'What are your opening hours?', 4500, 'Thank you, goodbye.', 60_000]),
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

async function signIn(page: Page): Promise<void> {
  // Every request the page makes stays on loopback.
  page.on('request', (request) => expect(new URL(request.url()).hostname).toBe('127.0.0.1'));
  await page.goto(consoleUrl);
  await page.getByLabel('API key').fill(org.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Agent', { exact: true }).selectOption(agent.public_id);
}

const conversationIdOf = async (page: Page) =>
  Number(/conversation (\d+)/.exec((await page.getByRole('status').textContent()) ?? '')?.[1]);

describe.skipIf(needsLocalStack)('talking to an agent from Chromium (console page)', () => {
  it('refuses a wrong key with a clear message', async () => {
    const page = await browser.newPage();
    await page.goto(consoleUrl);
    await page.getByLabel('API key').fill('vap_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('This API key is wrong or revoked.');
    await page.close();
  });

  it.each([
    ['Talk (microphone)', 'webrtc'],
    ['Talk over WebRTC', 'smallwebrtc'],
  ])(
    'voice (%s: %s): the microphone reaches the agent, its answers play, and the run ends completed with a recording',
    async (button, mode) => {
      const page = await browser.newPage();
      await signIn(page);
      await page.getByLabel(/Raw microphone/).check();
      await page.getByRole('button', { name: button }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toMatch(/^Connected: conversation \d+$/);
      const id = await conversationIdOf(page);
      // The caller says goodbye, the agent closes the conversation.
      await expect
        .poll(() => page.getByRole('status').textContent(), { timeout: 30_000 })
        .toBe(`Ended: conversation ${id}`);
      const lines = await page.getByRole('list', { name: 'Transcript' }).getByRole('listitem').allTextContents();
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
      await page.close();

      const run = await vi.waitFor(
        async () => {
          const response = await api.request('GET', `/agents/${agent.public_id}/conversations/${id}`, { key: org.key });
          expect(response.body.status).toBe('completed');
          return response.body;
        },
        { timeout: 15_000, interval: 200 },
      );
      expect(run).toMatchObject({ mode, recording_url: expect.any(String) });
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

  it('chat: messages to the agent, its answers and what it did, then the end of the conversation', async () => {
    const page = await browser.newPage();
    await signIn(page);
    await page.getByRole('button', { name: 'Chat' }).click();
    const transcript = page.getByRole('list', { name: 'Transcript' }).getByRole('listitem');
    await expect.poll(() => transcript.allTextContents()).toEqual(['Agent: Hi, this is Ann from Smile.']);
    const id = await conversationIdOf(page);
    await page.getByLabel('Message').fill('What are your opening hours?');
    await page.getByLabel('Message').press('Enter');
    await expect.poll(() => transcript.count()).toBe(3);
    await page.getByLabel('Message').fill('Thank you, goodbye.');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(`Ended: conversation ${id}`);
    expect(await page.getByRole('list', { name: 'Agent activity' }).getByRole('listitem').allTextContents()).toEqual([
      'Knowledge: Hours',
      'Tool end_call({}) → {"ok":true}',
    ]);
    await page.close();
  }, 30_000);
});
