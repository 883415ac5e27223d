import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { organizationSpeechProviders } from '../../media/src/agent/providers.ts';
import { ProviderError } from '../../media/src/agent/interfaces.ts';
import { startFakeOpenAi } from '../../local/fakes/openai-compatible.ts';

/**
 * An organization's OpenAI speech key is sent to the `api_url` it chose: the media task's speech
 * client reaches it only through the SSRF guard, at every utterance, whatever was stored. Names
 * resolve through the stub below (the guard's resolver is node:dns/promises `lookup`): nothing is
 * looked up, and nothing but loopback is ever connected to. The SDK's own fetch (the global one)
 * is replaced by a spy that connects nowhere, so a client built without the guard shows up here.
 */
const NAMES: Record<string, string> = {
  'speech.attacker.test': '169.254.169.254',
  'ecs.attacker.test': '169.254.170.2',
  'internal.attacker.test': '10.0.0.5',
  'speech.local.test': '127.0.0.1',
};
const lookups = vi.hoisted(() => [] as string[]);
vi.mock('node:dns/promises', async (original) => ({
  ...(await original<typeof import('node:dns/promises')>()),
  lookup: async (hostname: string) => {
    lookups.push(hostname);
    const address = NAMES[hostname];
    if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return [{ address, family: 4 }];
  },
}));

const unguarded = vi.fn(async () => {
  throw new Error('the SDK used its default fetch: this request was not checked by the SSRF guard');
});

beforeEach(() => {
  lookups.length = 0;
  unguarded.mockClear();
  vi.stubGlobal('fetch', unguarded);
});
afterEach(() => {
  vi.unstubAllGlobals();
  delete process.env.OUTBOUND_ALLOW_LOOPBACK;
});

/** The organization's text-to-speech with its OpenAI key at `apiUrl`, saying `text`. */
async function speak(apiUrl: string, text = 'Hello.'): Promise<Buffer> {
  const { tts } = organizationSpeechProviders({}, { openai: { apiKey: 'sk-org-0123456789', apiUrl } });
  const chunks: Uint8Array[] = [];
  for await (const chunk of tts!.stream(text, { language: 'en' }, new AbortController().signal)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe("an organization's OpenAI speech URL is reached only through the SSRF guard", () => {
  it.each([
    [
      'a name resolving to the instance metadata address',
      'https://speech.attacker.test/latest/meta-data/iam/security-credentials/?',
      /speech\.attacker\.test resolves to 169\.254\.169\.254, which is not a public address \(link-local\)/,
    ],
    [
      'a name resolving to the ECS task credentials address',
      'https://ecs.attacker.test/v2/credentials?',
      /resolves to 169\.254\.170\.2, which is not a public address \(link-local\)/,
    ],
    [
      'a name resolving to a private address',
      'https://internal.attacker.test:8080/internal',
      /resolves to 10\.0\.0\.5, which is not a public address \(private\)/,
    ],
    [
      'the metadata address itself',
      'https://169.254.169.254/latest/meta-data/',
      /169\.254\.169\.254 is not a public address/,
    ],
    ['IPv6 loopback', 'https://[::1]:6379/', /::1 is not a public address \(loopback\)/],
    ['plain http', 'http://speech.local.test/v1', /Only https URLs may be fetched, not http/],
  ])('refuses %s when speaking, before connecting, naming why', async (_case, apiUrl, reason) => {
    const error = await speak(apiUrl).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toMatch(/^OpenAI speech: /);
    expect((error as Error).message).toMatch(reason);
    expect(unguarded).not.toHaveBeenCalled();
  });

  it('speaks through the guard where the local stack allows loopback (the address checked after the stubbed lookup)', async () => {
    process.env.OUTBOUND_ALLOW_LOOPBACK = 'true';
    const fake = await startFakeOpenAi({ apiKey: 'sk-org-0123456789' });
    try {
      const audio = await speak(fake.url.replace('127.0.0.1', 'speech.local.test'), 'Hi there.');
      expect(audio.length).toBe('Hi there.'.length * 160);
      expect(lookups).toContain('speech.local.test');
      expect(unguarded).not.toHaveBeenCalled();
    } finally {
      await fake.stop();
    }
  });
});
