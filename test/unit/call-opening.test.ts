import { describe, expect, it, vi } from 'vitest';
import { buildCallPlan } from '../../media/src/agent/call-plan.ts';
import type { SpeechToTextStream } from '../../media/src/agent/interfaces.ts';
import { CallPipeline } from '../../media/src/call/call-pipeline.ts';
import { callInput } from '../support/voice.ts';

/** A promise settled from outside. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((done, fail) => ((resolve = done), (reject = fail)));
  return { promise, resolve, reject };
}

/**
 * A call whose speech-to-text stream opens only when the test says (`opening`), with a greeting
 * whose speech is ready at once: what the caller hears and what reaches the stream.
 */
function callWithSlowStream() {
  const opening = deferred<SpeechToTextStream>();
  const sent: { event: string }[] = [];
  const pipeline = new CallPipeline({
    send: (message) => void sent.push(message as { event: string }),
    prepare: async () => ({
      plan: buildCallPlan(callInput({ workflowDefinition: { greeting: 'Hello, this is the clinic.' } })),
      organizationId: 1,
      providers: {
        stt: { name: 'stt', open: () => opening.promise },
        llm: {
          name: 'llm',
          defaultModel: 'm',
          // eslint-disable-next-line require-yield -- the caller never speaks in these calls
          async *stream() {
            return;
          },
        },
        tts: {
          name: 'tts',
          async *stream(text) {
            yield Buffer.alloc(text.length * 160, 0x7f);
          },
        },
      },
    }),
  });
  const frame = (atMs: number) =>
    pipeline.handle({
      event: 'media',
      media: { payload: Buffer.alloc(160, 0xff).toString('base64'), timestamp: atMs },
    });
  const start = () =>
    pipeline.handle({ event: 'start', start: { streamSid: 'MZ1', customParameters: { run_ref: '1.2.3' } } });
  return { pipeline, opening, sent, frame, start };
}

describe('the call opens: the greeting does not wait for the speech-to-text stream', () => {
  it("sends the greeting's first frame while the stream is still opening; the caller's audio meanwhile reaches it once open", async () => {
    const { pipeline, opening, sent, frame, start } = callWithSlowStream();
    await start();
    await vi.waitFor(() => expect(sent.some((message) => message.event === 'media')).toBe(true));
    for (let atMs = 0; atMs < 100; atMs += 20) await frame(atMs);
    const heard: number[] = [];
    opening.resolve({ send: (mulaw) => void heard.push(mulaw.length), close: async () => {} });
    await pipeline.opened;
    expect(heard).toEqual([160, 160, 160, 160, 160]);
    await frame(100);
    expect(heard).toHaveLength(6);
    const result = await pipeline.finish('stop');
    await result.recording?.dispose();
    expect(result.failure).toBeNull();
  });

  it('a stream that cannot open still fails the call, cutting the greeting for the apology', async () => {
    const { pipeline, opening, sent, start } = callWithSlowStream();
    await start();
    await vi.waitFor(() => expect(sent.some((message) => message.event === 'media')).toBe(true));
    opening.reject(new Error('could not open the live stream'));
    await pipeline.opened;
    await pipeline.idle();
    expect(pipeline.fragments.map((fragment) => fragment.text).at(-1)).toBe(buildCallPlan(callInput()).phrases.apology);
    const result = await pipeline.finish('stop');
    await result.recording?.dispose();
    expect(result.failure).toBe('could not open the live stream');
  });
});
