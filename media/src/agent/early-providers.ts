/**
 * A call's providers made ready while its phone rings (media/src/call-preparer.ts): the greeting's
 * speech synthesized (or taken from the greetings kept, greeting-cache.ts), the model's connection
 * opened. The greeting is handed to the call as the text-to-speech provider it stands for, so the
 * call's pipeline uses it unchanged; what cannot be used as it was prepared (failed, another
 * language or text) falls back to the provider itself. The speech-to-text stream is not opened
 * early: the call greets while it opens (call-pipeline.ts), so holding one per dialed call (a
 * WebSocket kept alive for as long as the phone rings, busy and unanswered calls included) would
 * make the greeting no sooner.
 */
import type { LanguageModel, TextToSpeech } from './interfaces.ts';

/** The greeting's audio kept at most (60 s of 8 kHz mu-law): a longer one is spoken as it streams. */
export const MAX_PREFETCHED_SPEECH_BYTES = 60 * 8000;

/** Something prepared for a call, handed over once (`provider`), or released unused. */
export interface Early<T> {
  provider: T;
  /** What was prepared was handed to the call (tests, the bench). */
  readonly used: boolean;
  /** Closes what the call did not take (idempotent). */
  release(): Promise<void>;
}

type SpeechOptions = { voice?: string; language: string };

/**
 * `text` synthesized now, its audio kept as it arrives, for any number of replays: each plays it
 * from memory as far as it has come, then as the rest arrives. Past MAX_PREFETCHED_SPEECH_BYTES it
 * is kept only while `keepLonger()` says so (a call is playing it: then it is that call's speech,
 * however long); otherwise it stops and is unusable, as is a synthesis that failed.
 */
export class SpeechAhead {
  readonly chunks: Uint8Array[] = [];
  bytes = 0;
  private state: 'streaming' | 'done' | 'unusable' = 'streaming';
  private failure: unknown = null;
  private readonly controller = new AbortController();
  private readonly waiting = new Set<() => void>();
  /** Resolves true once the whole audio is here, false if it failed or was stopped. */
  readonly synthesized: Promise<boolean>;

  constructor(
    private readonly tts: TextToSpeech,
    readonly text: string,
    readonly options: SpeechOptions,
    keepLonger: () => boolean = () => false,
  ) {
    this.synthesized = (async () => {
      try {
        for await (const chunk of tts.stream(text, options, this.controller.signal)) {
          this.bytes += chunk.length;
          if (this.bytes > MAX_PREFETCHED_SPEECH_BYTES && !keepLonger())
            throw new Error('longer than the prefetch keeps');
          this.chunks.push(chunk);
          this.changed();
        }
        this.state = this.controller.signal.aborted ? 'unusable' : 'done';
      } catch (error) {
        this.state = 'unusable';
        this.failure = error;
        this.controller.abort();
      }
      this.changed();
      return this.state === 'done';
    })();
  }

  /** Calls playing it now. */
  get playing(): number {
    return this.waiting.size;
  }

  /** It can still be played (whole, or arriving). */
  get usable(): boolean {
    return this.state !== 'unusable';
  }

  /** Whether this is the speech of `text` in that voice and language. */
  speaks(text: string, options: SpeechOptions): boolean {
    return text === this.text && options.voice === this.options.voice && options.language === this.options.language;
  }

  /** Stops a synthesis under way; what it kept goes. */
  async stop(): Promise<void> {
    this.controller.abort();
    this.chunks.length = 0;
    await this.synthesized;
  }

  /** The audio from its start, as far as it has come and then as it arrives, until `signal` aborts. */
  async *replay(signal: AbortSignal): AsyncIterable<Uint8Array> {
    let wake: () => void = () => {};
    const onChange = () => wake();
    this.waiting.add(onChange);
    signal.addEventListener('abort', onChange, { once: true });
    try {
      for (let next = 0; ;) {
        if (signal.aborted) return;
        if (next < this.chunks.length) yield this.chunks[next++]!;
        else if (this.state === 'done') return;
        // It failed while the call played it: the call's speech failed, as a live stream's would.
        else if (this.state === 'unusable') throw this.failure;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      this.waiting.delete(onChange);
      signal.removeEventListener('abort', onChange);
    }
  }

  private changed(): void {
    for (const wake of this.waiting) wake();
  }
}

/**
 * Text-to-speech whose first `stream` of `speech`'s text, voice and language plays `speech`
 * (`take` says whether it may, and marks it taken); anything else, or a speech no longer usable,
 * is synthesized as usual.
 */
function speakingFrom(tts: TextToSpeech, speech: SpeechAhead, take: () => boolean): TextToSpeech {
  const stream: TextToSpeech['stream'] = (text, options, signal) =>
    speech.speaks(text, options) && speech.usable && take() ? speech.replay(signal) : tts.stream(text, options, signal);
  const forCall = tts.forCall?.bind(tts);
  return {
    name: tts.name,
    stream,
    // The call's own connection speaks the rest; the greeting still plays from what was prepared.
    ...(forCall
      ? {
          forCall: () => {
            const own = forCall();
            return { ...speakingFrom(own, speech, take), forCall: undefined, close: () => own.close() };
          },
        }
      : {}),
  };
}

/**
 * `text` synthesized now for one call (a greeting with the call's own variables in it): the
 * call's first `stream` of that text plays it (SpeechAhead). A synthesis that failed or grew too
 * long is done again when the call asks for it; released unused, the synthesis under way stops.
 */
export function speakEarly(
  tts: TextToSpeech,
  text: string,
  options: SpeechOptions,
): Early<TextToSpeech> & { synthesized: Promise<boolean> } {
  let taken = false;
  const speech = new SpeechAhead(tts, text, options, () => taken);
  return {
    synthesized: speech.synthesized,
    get used() {
      return taken;
    },
    provider: speakingFrom(tts, speech, () => !taken && (taken = true)),
    release: async () => {
      if (taken) return;
      taken = true;
      await speech.stop();
    },
  };
}

/**
 * A greeting's speech shared by the calls that say the same words (greeting-cache.ts): each
 * call's first `stream` of its text plays it; releasing a call leaves it to the others.
 */
export function speakShared(tts: TextToSpeech, speech: SpeechAhead): Early<TextToSpeech> {
  let taken = false;
  return {
    get used() {
      return taken;
    },
    provider: speakingFrom(tts, speech, () => !taken && (taken = true)),
    release: async () => {
      taken = true;
    },
  };
}

/**
 * How long a model connection opened counts as open: a call prepared within it does not open
 * another (a campaign dials tens of calls a second; the clients share their connections).
 */
export const MODEL_WARM_INTERVAL_MS = 1_000;
const warmedAt = new WeakMap<LanguageModel, number>();

/**
 * Opens the model's connection (a model without a way to is left as it is), unless this client
 * opened one within MODEL_WARM_INTERVAL_MS.
 */
export async function warmModel(llm: LanguageModel, now = Date.now()): Promise<void> {
  const last = warmedAt.get(llm);
  if (!llm.warmUp || (last !== undefined && now - last < MODEL_WARM_INTERVAL_MS)) return;
  warmedAt.set(llm, now);
  await llm.warmUp().catch(() => {});
}
