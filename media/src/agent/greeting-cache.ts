/**
 * Greetings' speech kept by the media task for the next calls that say the same words: a
 * campaign dials an agent's calls by the hundred, and a greeting without the call's own variables
 * in it is the same audio every time. Keyed by whatever the audio depends on (call-sessions.ts:
 * the agent and its version, the definition version, the provider, the voice, the language, the
 * text), so a changed agent or definition gets new audio; bounded in bytes, entries and age. A
 * synthesis under way is shared too (calls dialed together wait for one synthesis); one that
 * failed, or ran past the greeting's limit, is not kept.
 */

import type { CallPlan } from './call-plan.ts';
import { MAX_PREFETCHED_SPEECH_BYTES, SpeechAhead, speakEarly, speakShared, type Early } from './early-providers.ts';
import type { TextToSpeech } from './interfaces.ts';

/** What is kept: a synthesis that settles true once its audio is whole, and its size then. */
export interface KeptSpeech {
  readonly synthesized: Promise<boolean>;
  readonly bytes: number;
}

export interface GreetingCacheLimits {
  /** The audio kept at most, in bytes (the oldest used goes first). */
  maxBytes: number;
  maxEntries: number;
  /** Audio older than this is made again (a provider's voice may change under the same name). */
  maxAgeMs: number;
  /** A greeting's audio larger than this is not kept. */
  maxSpeechBytes: number;
}

/** 8 MiB: about 17 minutes of 8 kHz mu-law, some two hundred greetings of 5 s. */
export const GREETING_CACHE_LIMITS: GreetingCacheLimits = {
  maxBytes: 8 * 1024 * 1024,
  maxEntries: 1_000,
  maxAgeMs: 60 * 60 * 1000,
  maxSpeechBytes: MAX_PREFETCHED_SPEECH_BYTES,
};

interface Entry<S> {
  speech: S;
  at: number;
  /** Counted once the audio is whole and kept; 0 while it is synthesized. */
  bytes: number;
}

export class GreetingCache<S extends KeptSpeech> {
  /** In the order of last use: the oldest used first. */
  private readonly entries = new Map<string, Entry<S>>();
  private keptBytes = 0;

  constructor(
    private readonly limits: GreetingCacheLimits = GREETING_CACHE_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Greetings kept or under way. */
  get size(): number {
    return this.entries.size;
  }

  /** The bytes of audio kept. */
  get bytes(): number {
    return this.keptBytes;
  }

  /**
   * The speech for `key`: the one kept (or under way) if there is one not older than `maxAgeMs`,
   * otherwise `synthesize()`'s, kept once whole. `kept` says it came from an earlier call.
   */
  speech(key: string, synthesize: () => S): { speech: S; kept: boolean } {
    const now = this.now();
    const found = this.entries.get(key);
    if (found && now - found.at < this.limits.maxAgeMs) {
      this.entries.delete(key);
      this.entries.set(key, found);
      return { speech: found.speech, kept: true };
    }
    if (found) this.remove(key, found);
    const entry: Entry<S> = { speech: synthesize(), at: now, bytes: 0 };
    this.entries.set(key, entry);
    void entry.speech.synthesized.then(
      (whole) => this.settled(key, entry, whole),
      () => this.settled(key, entry, false),
    );
    this.trim();
    return { speech: entry.speech, kept: false };
  }

  private settled(key: string, entry: Entry<S>, whole: boolean): void {
    if (this.entries.get(key) !== entry) return;
    if (!whole || entry.speech.bytes > this.limits.maxSpeechBytes) return this.remove(key, entry);
    entry.bytes = entry.speech.bytes;
    this.keptBytes += entry.bytes;
    this.trim();
  }

  private remove(key: string, entry: Entry<S>): void {
    this.entries.delete(key);
    this.keptBytes -= entry.bytes;
  }

  private trim(): void {
    for (const [key, entry] of this.entries) {
      if (this.keptBytes <= this.limits.maxBytes && this.entries.size <= this.limits.maxEntries) return;
      this.remove(key, entry);
    }
  }
}

/**
 * The greeting's speech made ready for a call (null without a greeting): the one kept in `cache`
 * for its words when they are the agent's alone (`kept`: made for an earlier call), keyed by all
 * the audio depends on (`speechSource`: the agent and its version, the definition version, the
 * provider and whose key; then the voice, the language and the words); a greeting with the
 * call's own variables in it is synthesized for this call only.
 */
export function greetingSpeech(
  cache: GreetingCache<SpeechAhead>,
  tts: TextToSpeech,
  plan: Pick<CallPlan, 'settings' | 'greetingVaries'>,
  speechSource: string,
): { early: Early<TextToSpeech>; kept: boolean } | null {
  const { language, voice, firstMessage } = plan.settings;
  const greeting = firstMessage?.trim();
  if (!greeting) return null;
  const options = { voice, language };
  if (plan.greetingVaries) return { early: speakEarly(tts, greeting, options), kept: false };
  const key = JSON.stringify([speechSource, voice ?? null, language, greeting]);
  const { speech, kept } = cache.speech(key, () => {
    // Past the greeting's limit it goes on only for the calls playing it (it is not kept then).
    const shared: SpeechAhead = new SpeechAhead(tts, greeting, options, () => shared.playing > 0);
    return shared;
  });
  return { early: speakShared(tts, speech), kept };
}
