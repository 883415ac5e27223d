/**
 * CPU time per request of the answers' HTTP clients (a quarter of the media process's CPU in
 * bench/media-capacity.ts's profile): a streamed chat completion through the `openai` SDK, one
 * sentence to ElevenLabs through its SDK, and the same speech request through `fetch` alone and
 * through `node:http`, to tell the SDK's share from the transport's; and the same sentence as a
 * context on a call's own multi-context WebSocket (ElevenLabsTextToSpeech.forCall, one per
 * concurrent sender, as one per call). The clients are the media
 * task's own (platformProviders); the fakes run in a process of their own
 * (bench/media-capacity-fakes.ts), so only the clients' CPU is counted. Prints one JSON line.
 *
 *   tsx bench/answer-request-cost.ts [requests per round, default 400]
 */
import { fork } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { platformProviders, type VoiceProviderKey } from '../media/src/agent/providers.ts';
import type { FakesReady } from './media-capacity-fakes.ts';

const REQUESTS = Number(process.argv[2] ?? 400);
const CONCURRENT = 20;
const ROUNDS = 3;
const SENTENCE = 'Our opening hours are Monday to Friday, eight to four.';

const fakes = fork(new URL('./media-capacity-fakes.ts', import.meta.url), {
  execArgv: ['--import', 'tsx'],
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});
const ready = await new Promise<FakesReady>((resolve) => fakes.once('message', resolve));
const platform = platformProviders(
  ready.settings,
  async (names) => Object.fromEntries(names.map((name) => [name, ready.keys[name]])) as never,
);
const [llm, tts] = await Promise.all([platform.llm(), platform.tts()]);
const speechUrl = `${ready.settings.ELEVENLABS_API_URL}/v1/text-to-speech/bench-voice/stream?output_format=ulaw_8000`;
const speechHeaders = {
  'xi-api-key': ready.keys['elevenLabsApiKey' satisfies VoiceProviderKey]!,
  'content-type': 'application/json',
};
const speechBody = JSON.stringify({ text: SENTENCE, model_id: 'eleven_flash_v2_5' });

/** One call's own connection per concurrent sender. */
const callSpeech = Array.from({ length: CONCURRENT }, () => tts.forCall!());

const clients: Record<string, (sender: number) => Promise<void>> = {
  openaiChatStream: async () => {
    const request = {
      model: llm.defaultModel,
      temperature: 0.3,
      tools: [],
      messages: [
        {
          role: 'system' as const,
          content: 'You answer for a clinic. Opening hours: Monday to Friday, 8:00 to 16:00.',
        },
        { role: 'user' as const, content: 'What are your opening hours?' },
      ],
    };
    for await (const _event of llm.stream(request, new AbortController().signal));
  },
  elevenLabsSdk: async () => {
    for await (const _chunk of tts.stream(SENTENCE, { language: 'en-US' }, new AbortController().signal));
  },
  elevenLabsCallSocket: async (sender) => {
    for await (const _chunk of callSpeech[sender]!.stream(
      SENTENCE,
      { language: 'en-US' },
      new AbortController().signal,
    ));
  },
  elevenLabsFetch: async () => {
    const response = await fetch(speechUrl, { method: 'POST', headers: speechHeaders, body: speechBody });
    for await (const _chunk of response.body!);
  },
  elevenLabsNodeHttp: () =>
    new Promise((resolve, reject) => {
      const request = httpRequest(speechUrl, { method: 'POST', headers: speechHeaders }, (response) => {
        response.on('data', () => {});
        response.on('end', resolve);
      });
      request.on('error', reject);
      request.end(speechBody);
    }),
};

/** REQUESTS requests, CONCURRENT at a time. */
async function round(send: (sender: number) => Promise<void>): Promise<void> {
  let started = 0;
  await Promise.all(
    Array.from({ length: CONCURRENT }, async (_, sender) => {
      while (started++ < REQUESTS) await send(sender);
    }),
  );
}

try {
  for (const send of Object.values(clients)) await round(send); // warm-up: modules, connections, JIT
  const cpuMsPerRequest: Record<string, number[]> = {};
  for (let index = 0; index < ROUNDS; index++) {
    for (const [name, send] of Object.entries(clients)) {
      const start = process.cpuUsage();
      await round(send);
      const cpu = process.cpuUsage(start);
      (cpuMsPerRequest[name] ??= []).push(Math.round(((cpu.user + cpu.system) / 1000 / REQUESTS) * 1000) / 1000);
    }
  }
  console.log(JSON.stringify({ requests: REQUESTS, concurrent: CONCURRENT, cpuMsPerRequest }));
} finally {
  for (const call of callSpeech) call.close();
  fakes.send({ type: 'stop' });
}
