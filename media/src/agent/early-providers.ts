/**
 * A call's providers made ready while its phone rings (media/src/call-preparer.ts): the
 * speech-to-text stream opened (the provider's own KeepAlive holds it while no audio comes), the
 * greeting's speech synthesized, the model's connection opened. Each is handed to the call as the
 * provider it stands for, so the call's pipeline uses it unchanged; what cannot be used as it was
 * prepared (failed, another language or text) falls back to the provider itself.
 */
import type {
  LanguageModel,
  SpeechToText,
  SpeechToTextEvents,
  SpeechToTextStream,
  TextToSpeech,
} from './interfaces.ts';

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

/**
 * A speech-to-text stream opened now for a call that starts later: until the call opens it, its
 * events wait (none come without audio but a failure); the first `open` with the same language
 * takes it over, any other opens a stream of its own.
 */
export function listenEarly(stt: SpeechToText, language: string): Early<SpeechToText> & { opened: Promise<boolean> } {
  let events: SpeechToTextEvents | null = null;
  let failure: Error | null = null;
  let taken = false;
  let released = false;
  const forward: SpeechToTextEvents = {
    speechStarted: () => events?.speechStarted(),
    transcript: (result) => events?.transcript(result),
    utteranceEnd: () => events?.utteranceEnd(),
    reconnecting: (reason) => events?.reconnecting?.(reason),
    failed: (error) => (events ? events.failed(error) : (failure = error)),
  };
  const opening = stt.open({ language }, forward);
  const opened = opening.then(
    () => true,
    () => false,
  );
  const closeUnused = async () => {
    const stream = await opening.catch(() => null);
    await stream?.close().catch(() => {});
  };
  return {
    opened,
    get used() {
      return taken;
    },
    provider: {
      name: stt.name,
      open: async (options, callEvents): Promise<SpeechToTextStream> => {
        if (taken || released || options.language !== language || !(await opened) || failure) {
          if (!taken && !released) {
            released = true;
            void closeUnused();
          }
          return stt.open(options, callEvents);
        }
        taken = true;
        events = callEvents;
        return opening;
      },
    },
    release: async () => {
      if (taken || released) return;
      released = true;
      await closeUnused();
    },
  };
}

/**
 * `text` synthesized now, kept as it arrives (up to MAX_PREFETCHED_SPEECH_BYTES): the first
 * `stream` of that text plays it from memory, as far as it has come, then as the rest arrives;
 * anything else is synthesized as usual. A synthesis that failed or grew too long is done again
 * when the call asks for it.
 */
export function speakEarly(
  tts: TextToSpeech,
  text: string,
  options: { voice?: string; language: string },
): Early<TextToSpeech> & { synthesized: Promise<boolean> } {
  const controller = new AbortController();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let state: 'streaming' | 'done' | 'unusable' = 'streaming';
  let failure: unknown = null;
  let taken = false;
  let wake: (() => void) | null = null;
  const changed = () => {
    wake?.();
    wake = null;
  };
  const synthesized = (async () => {
    try {
      for await (const chunk of tts.stream(text, options, controller.signal)) {
        bytes += chunk.length;
        // Once the call plays it, the greeting is the call's speech, however long.
        if (!taken && bytes > MAX_PREFETCHED_SPEECH_BYTES) throw new Error('longer than the prefetch keeps');
        chunks.push(chunk);
        changed();
      }
      state = controller.signal.aborted ? 'unusable' : 'done';
    } catch (error) {
      state = 'unusable';
      failure = error;
      controller.abort();
    }
    changed();
    return state === 'done';
  })();

  async function* replay(signal: AbortSignal): AsyncIterable<Uint8Array> {
    signal.addEventListener('abort', changed, { once: true });
    for (let next = 0; ;) {
      if (signal.aborted) return;
      if (next < chunks.length) yield chunks[next++]!;
      else if (state === 'done') return;
      // It failed while the call played it: the call's speech failed, as a live stream's would.
      else if (state === 'unusable') throw failure;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  }

  return {
    synthesized,
    get used() {
      return taken;
    },
    provider: {
      name: tts.name,
      stream: (spoken, spokenOptions, signal) => {
        const same =
          spoken === text && spokenOptions.voice === options.voice && spokenOptions.language === options.language;
        if (taken || !same || state === 'unusable') return tts.stream(spoken, spokenOptions, signal);
        taken = true;
        return replay(signal);
      },
    },
    release: async () => {
      if (taken) return;
      taken = true;
      controller.abort();
      chunks.length = 0;
      await synthesized;
    },
  };
}

/** Opens the model's connection (a model without a way to is left as it is). */
export async function warmModel(llm: LanguageModel): Promise<void> {
  await llm.warmUp?.().catch(() => {});
}
