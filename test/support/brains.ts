import type { LanguageModel, ModelEvent, ModelRequest } from '../../media/src/agent/interfaces.ts';
import type { Answer } from '../../media/src/call/brain.ts';

/** A brain's test doubles: a scripted model, and an answer that notes what it was given. */
/** A model answering each request with the next scripted round (text pieces and tool calls). */
export function scriptedModel(rounds: ModelEvent[][], { hold }: { hold?: Promise<void> } = {}) {
  const requests: ModelRequest[] = [];
  const llm: LanguageModel = {
    name: 'fake-llm',
    defaultModel: 'fake-1',
    async *stream(request, signal) {
      requests.push(structuredClone(request));
      if (hold) await Promise.race([hold, new Promise((resolve) => signal.addEventListener('abort', resolve))]);
      if (signal.aborted) return;
      yield* rounds[requests.length - 1] ?? [];
    },
  };
  return { llm, requests };
}

/** An answer as the reply gives it to a brain: what it said, its last words and hang-up, out. */
export function fakeAnswer() {
  const controller = new AbortController();
  const said: string[] = [];
  /** What was said not interruptible (answer.say's option). */
  const held: string[] = [];
  const state = { final: '', hangUp: false };
  const answer: Answer = {
    signal: controller.signal,
    get saidAnything() {
      return said.length > 0;
    },
    get hangingUp() {
      return state.hangUp;
    },
    say: (text, _audio, options) => {
      said.push(text.trim());
      if (options?.interruptible === false) held.push(text.trim());
    },
    finalWords: (text) => void (state.final = text),
    hangUp: () => void (state.hangUp = true),
  };
  return { answer, said, held, state, controller };
}
