import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildCallPlan } from '../../media/src/agent/call-plan.ts';
import type { LanguageModel, ModelEvent } from '../../media/src/agent/interfaces.ts';
import { ProviderError } from '../../media/src/agent/interfaces.ts';
import { CallTexts } from '../../media/src/call/call-texts.ts';
import { AgentTools } from '../../media/src/call/agent-tools.ts';
import type { LiveEvent } from '../../media/src/call/live-tap.ts';
import { PromptBrain } from '../../media/src/call/prompt-brain.ts';
import { fakeAnswer, scriptedModel } from '../support/brains.ts';
import { callInput } from '../support/voice.ts';

afterEach(() => vi.useRealTimers());

function brain(
  llm: LanguageModel,
  input = callInput(),
  timing?: { fillerAfterMs?: number; modelAnswerLimitMs?: number },
) {
  const events: LiveEvent[] = [];
  const gathered: Record<string, unknown> = {};
  const runLogs: string[] = [];
  const call = {
    plan: buildCallPlan(input),
    providers: { llm },
    organizationId: 1,
    runLog: (_level: string, message: string) => void runLogs.push(message),
  };
  const effects = {
    gathered,
    closing: vi.fn(),
    transfer: vi.fn(async () => {}),
    texts: new CallTexts(call, { gathered, transcriptEvent: () => {} }),
    log: () => {},
    runRef: () => '1.2.3',
  };
  const part = new PromptBrain(call, {
    chat: false,
    timing,
    tools: new AgentTools(call, effects),
    sessionEvent: (event) => void events.push(event),
    isEnded: () => false,
    log: () => {},
    runRef: () => '1.2.3',
  });
  return { part, events, gathered, runLogs, effects };
}

const text = (value: string): ModelEvent => ({ type: 'text', text: value });

describe('the prompt brain (the model and its tool loop)', () => {
  it.each([
    {
      name: 'says each sentence as soon as it is complete, the rest at the end',
      pieces: ['Hello the', 're. How are', ' you? Fine'],
      said: ['Hello there.', 'How are you?', 'Fine'],
    },
    { name: 'one sentence without a stop', pieces: ['Sure'], said: ['Sure'] },
    { name: 'nothing', pieces: [], said: [] },
  ])('$name', async ({ pieces, said: expected }) => {
    const { llm, requests } = scriptedModel([pieces.map(text)]);
    const { part } = brain(llm);
    part.hearCaller('Hi');
    const { answer, said, state } = fakeAnswer();
    await part.answer(answer, 'Hi');
    expect(said).toEqual(expected);
    expect(state.final).toBe(pieces.join(''));
    expect(requests[0]!.messages.slice(1)).toEqual([{ role: 'user', content: 'Hi' }]);
  });

  it('adds the knowledge that matches the caller to the system prompt of that turn, and says which', async () => {
    const { llm, requests } = scriptedModel([[text('We open at 8.')]]);
    const { part, events, runLogs } = brain(
      llm,
      callInput({ passages: [{ id: 'p1', document_id: 'd1', title: 'Hours', text: 'Opening hours: 8 to 16.' }] }),
    );
    await part.answer(fakeAnswer().answer, 'opening hours?');
    expect(requests[0]!.messages[0]!.content).toContain('[Hours] Opening hours: 8 to 16.');
    expect(events).toEqual([{ event: 'knowledge', passages: [{ title: 'Hours', text: 'Opening hours: 8 to 16.' }] }]);
    expect(runLogs[0]).toMatch(/^Knowledge used for "opening hours\?": \[Hours\]/);
  });

  it('runs tool calls between rounds, and the model sees their results', async () => {
    const { llm, requests } = scriptedModel([
      [
        text('Noted.'),
        { type: 'tool_call', id: 'c1', name: 'save_information', arguments: '{"key":"email","value":"a@b.c"}' },
      ],
      [text('Anything else?')],
    ]);
    const { part, events, gathered } = brain(llm);
    const { answer, said, state } = fakeAnswer();
    await part.answer(answer, null);
    expect(said).toEqual(['Noted.', 'Anything else?']);
    expect(state.final).toBe('Anything else?');
    expect(gathered).toEqual({ email: 'a@b.c' });
    expect(events).toEqual([
      {
        event: 'tool_call',
        name: 'save_information',
        arguments: '{"key":"email","value":"a@b.c"}',
        result: '{"ok":true}',
      },
    ]);
    expect(requests[1]!.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: 'Noted.',
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'save_information', arguments: '{"key":"email","value":"a@b.c"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"ok":true}' },
    ]);
  });

  it('stops after a tool that ends the call', async () => {
    const { llm, requests } = scriptedModel([
      [text('Goodbye.'), { type: 'tool_call', id: 'c1', name: 'end_call', arguments: '{}' }],
      [text('never asked')],
    ]);
    const { part, effects } = brain(llm);
    const { answer, state } = fakeAnswer();
    await part.answer(answer, null);
    expect(requests).toHaveLength(1);
    expect(state.hangUp).toBe(true);
    expect(effects.closing).toHaveBeenCalledOnce();
  });

  it('says the filler once when the model is still silent after FILLER_AFTER_MS (wall time: fake timers)', async () => {
    vi.useFakeTimers();
    let release!: () => void;
    const { llm } = scriptedModel([[text('Here it is.')]], { hold: new Promise((resolve) => (release = resolve)) });
    const { part } = brain(llm, callInput(), { fillerAfterMs: 2000 });
    const { answer, said } = fakeAnswer();
    const done = part.answer(answer, null);
    await vi.advanceTimersByTimeAsync(1999);
    expect(said).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(said).toEqual(['One moment, please.']);
    release();
    await done;
    expect(said).toEqual(['One moment, please.', 'Here it is.']);
  });

  it('fails, naming the model, when it has not started answering within the limit', async () => {
    vi.useFakeTimers();
    const { llm } = scriptedModel([[text('too late')]], { hold: new Promise(() => {}) });
    const { part } = brain(llm, callInput(), { modelAnswerLimitMs: 10_000 });
    const failed = part.answer(fakeAnswer().answer, null).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(10_000);
    const error = await failed;
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toBe('fake-llm: no answer within 10 s');
  });

  it('an answer cut off stops quietly, and says nothing more', async () => {
    let release!: () => void;
    const { llm } = scriptedModel([[text('Late words.')]], { hold: new Promise((resolve) => (release = resolve)) });
    const { part } = brain(llm);
    const { answer, said, controller } = fakeAnswer();
    const done = part.answer(answer, null);
    controller.abort();
    release();
    await done;
    expect(said).toEqual([]);
  });

  it('keeps the conversation: what the caller said and heard, notes, and a call taken back', async () => {
    const { llm, requests } = scriptedModel([[text('Sure.')]]);
    const { part } = brain(llm);
    part.restore([{ role: 'user', content: 'Earlier' }], 'The transfer was not taken.');
    part.hearCaller('Hello');
    const heard = part.heardAgent('Hi there');
    heard.content = 'Hi… (interrupted by the caller)';
    part.addNote('Offer the discount.');
    await part.answer(fakeAnswer().answer, null);
    expect(requests[0]!.messages.slice(1)).toEqual([
      { role: 'user', content: 'Earlier' },
      { role: 'system', content: 'The transfer was not taken.' },
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi… (interrupted by the caller)' },
      { role: 'system', content: 'Offer the discount.' },
    ]);
  });

  it("summarizes the call for a warm transfer from the conversation's words only", async () => {
    const { llm, requests } = scriptedModel([[text(' Anna wants a visit. ')], []]);
    const { part } = brain(llm);
    part.hearCaller('I want a visit');
    part.addNote('not for the summary');
    expect(await part.summary()).toBe('Anna wants a visit.');
    expect(requests[0]!.messages.slice(1)).toEqual([{ role: 'user', content: 'I want a visit' }]);
    expect(await part.summary()).toBe('A caller handed over by the voice agent.');
  });
});
