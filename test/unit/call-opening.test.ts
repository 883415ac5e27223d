import { describe, expect, it, vi } from 'vitest';
import { buildCallPlan } from '../../media/src/agent/call-plan.ts';
import type { ModelRequest, SpeechToTextStream } from '../../media/src/agent/interfaces.ts';
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
  const modelRequests: ModelRequest[] = [];
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
          // eslint-disable-next-line require-yield -- what the agent is asked is all these tests look at
          async *stream(request) {
            modelRequests.push(request);
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
  return { pipeline, opening, sent, modelRequests, frame, start };
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

  it("a caller's text that comes before the stream starts reaches the agent once the call is set up", async () => {
    const { pipeline, opening, modelRequests, start } = callWithSlowStream();
    // The platform passes a text on as soon as the stream is admitted: the pipeline may not have its start yet.
    const taken = pipeline.control({
      type: 'caller_text',
      sms_id: 'sms_r1',
      from: '+48601234561',
      body: 'anna@example.com',
    });
    await start();
    opening.resolve({ send: () => {}, close: async () => {} });
    expect(await taken).toBeNull();
    expect(pipeline.fragments.map(({ role, text }) => ({ role, text }))).toContainEqual({
      role: 'user',
      text: '[text message from +48601234561: anna@example.com]',
    });
    // The agent's next answer sees it.
    expect(await pipeline.control({ type: 'add_message', content: 'Answer the caller.', respond: true })).toBeNull();
    await vi.waitFor(() => expect(modelRequests).toHaveLength(1));
    expect(modelRequests[0]!.messages).toContainEqual({
      role: 'user',
      content: '(The caller texted: anna@example.com)',
    });
    const result = await pipeline.finish('stop');
    await result.recording?.dispose();
  });

  it('a call that ends before its stream starts refuses a text rather than keeping it', async () => {
    const { pipeline } = callWithSlowStream();
    const taken = pipeline.control({ type: 'caller_text', sms_id: 'sms_r2', from: '+48601234561', body: 'late' });
    await pipeline.finish('closed');
    expect(await taken).toBe('the call has ended');
  });
});
