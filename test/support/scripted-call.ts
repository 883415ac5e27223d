import { buildCallPlan } from '../../media/src/agent/call-plan.ts';
import type { SpeechToTextEvents } from '../../media/src/agent/interfaces.ts';
import { CallPipeline } from '../../media/src/call/call-pipeline.ts';
import { callInput } from './voice.ts';

/** A promise the test settles when it chooses: a provider held until that moment of the script. */
export interface Gate {
  promise: Promise<void>;
  open: () => void;
}

export function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * A voice call's pipeline on a clock the test moves, with in-memory providers: the greeting "Hi.",
 * a model that answers "We open at 8. " once `gates.model` opens, text-to-speech that gives 160
 * bytes of audio a character (the greeting once `gates.greeting` opens, the rest once
 * `gates.speech` does; both open from the start unless the test holds them), and speech-to-text
 * whose events the test sends through `recognition()`.
 */
export function scriptedCall(clock: () => number, held: { greeting?: boolean; speech?: boolean } = {}) {
  const gates = { greeting: gate(), model: gate(), speech: gate() };
  if (!held.greeting) gates.greeting.open();
  if (!held.speech) gates.speech.open();
  let recognition: SpeechToTextEvents | undefined;
  const pipeline = new CallPipeline({
    clock,
    send: () => {},
    prepare: async () => ({
      plan: buildCallPlan(callInput({ workflowDefinition: { greeting: 'Hi.' } })),
      organizationId: 1,
      providers: {
        stt: {
          name: 'stt',
          open: async (_options, events) => {
            recognition = events;
            return { send: () => {}, close: async () => {} };
          },
        },
        llm: {
          name: 'llm',
          defaultModel: 'm',
          async *stream() {
            await gates.model.promise;
            yield { type: 'text', text: 'We open at 8. ' };
          },
        },
        tts: {
          name: 'tts',
          async *stream(text) {
            await (text === 'Hi.' ? gates.greeting : gates.speech).promise;
            yield Buffer.alloc(text.length * 160, 0x7f);
          },
        },
      },
    }),
  });
  return {
    pipeline,
    gates,
    /** The speech-to-text stream's events, once the call opened it. */
    recognition(): SpeechToTextEvents {
      if (!recognition) throw new Error('speech-to-text is not open yet');
      return recognition;
    },
    /** Starts the stream (Twilio's start frame) and waits for the call to open. */
    async start(runRef: string): Promise<void> {
      await pipeline.handle({ event: 'start', start: { streamSid: 'MZ1', customParameters: { run_ref: runRef } } });
      await pipeline.opened;
    },
    /**
     * The caller's audio frames (20 ms each) from 0 to `untilMs` of the call's timeline, the
     * clock set to each frame's time (`at(ms)`), then the caller's words "When do you open?"
     * (0.2-0.8 s) as a final result when `at` is moved to `finalAtMs`, and the end of their
     * speech at `endAtMs`.
     */
    async callerAsks(at: (ms: number) => void, timings: { untilMs: number; finalAtMs: number; endAtMs: number }) {
      for (let atMs = 0; atMs < timings.untilMs; atMs += 20) {
        at(atMs);
        await pipeline.handle({
          event: 'media',
          media: { payload: Buffer.alloc(160, 0xff).toString('base64'), timestamp: atMs },
        });
      }
      at(timings.finalAtMs);
      this.recognition().transcript({
        text: 'When do you open?',
        isFinal: true,
        speechFinal: false,
        start: 0.2,
        end: 0.8,
      });
      at(timings.endAtMs);
      this.recognition().transcript({ text: '', isFinal: true, speechFinal: true, start: 0.8, end: 1.0 });
    },
  };
}
