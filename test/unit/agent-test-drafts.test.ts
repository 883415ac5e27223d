import { describe, expect, it } from 'vitest';
import { draftLanguage, draftTestCase, type DraftSource } from '../../shared/domain/agent-test-drafts.ts';
import { lintTestCase, type TestSubject } from '../../shared/domain/agent-tests.ts';

const flowAgent: TestSubject = {
  tools: [],
  steps: ['start', 'offer', 'card'],
  variables: ['age'],
  dispositions: ['card'],
};
const flatAgent: TestSubject = { tools: [], steps: null, variables: null, dispositions: [] };
const call = (fields: Partial<DraftSource> = {}): DraftSource => ({
  id: 7,
  name: 'Inbound +48 600',
  initial_context: { customer: 'Jan' },
  gathered_context: { call_disposition: 'card', age: 42 },
  path: ['start', 'offer', 'card'],
  transcript: [
    { role: 'assistant', text: 'Hello, how old are you?' },
    { role: 'user', text: ' I am 42 ' },
    { role: 'assistant', text: 'Card or loan?' },
    { role: 'user', text: 'The card, please' },
  ],
  language: 'pl',
  ...fields,
});

describe('a test case drafted from a conversation', () => {
  it("takes the caller's turns as the script and the outcome as expectations", () =>
    expect(draftTestCase(call(), flowAgent)).toEqual({
      name: 'From conversation 7: Inbound +48 600',
      mode: 'text',
      caller: {
        persona: 'The caller of conversation 7',
        goal: 'I am 42',
        language: 'pl',
        behaviour: ['cooperative'],
        script: ['I am 42', 'The card, please'],
      },
      initial_context: { customer: 'Jan' },
      tool_mocks: [],
      call_real_tools: false,
      max_turns: 3,
      timeout_seconds: 120,
      tags: ['from-call'],
      expectations: [
        { type: 'disposition', code: 'card' },
        { type: 'variable_gathered', variable: 'age', value: 42 },
        { type: 'step_reached', step: 'card', reached: true },
      ],
    }));

  it.each<[string, DraftSource, TestSubject, string[]]>([
    [
      'only what the agent still has: a code, variable and step it lost are left out',
      call(),
      { ...flowAgent, steps: ['start'], variables: [], dispositions: [] },
      ['judged'],
    ],
    ['a flat agent: any variable, no step', call({ path: [] }), flatAgent, ['variable_gathered']],
    [
      'a default disposition the agent does not define',
      call({ gathered_context: { call_disposition: 'completed' } }),
      flatAgent,
      ['judged'],
    ],
  ])('%s', (_case, source, subject, types) =>
    expect(draftTestCase(source, subject).expectations.map((expectation) => expectation.type)).toEqual(types),
  );

  it('a conversation without caller turns: no script, one turn, a goal to rewrite', () => {
    const draft = draftTestCase(call({ transcript: [] }), flatAgent);
    expect(draft.caller).not.toHaveProperty('script');
    expect(draft.max_turns).toBe(1);
    expect(draft.caller.goal).toBe('What the caller of the real conversation wanted');
  });

  it('keeps within the case limits: 49 script turns, 2,000 characters a turn, 255 in the name', () => {
    const long = call({
      name: 'x'.repeat(400),
      transcript: Array.from({ length: 80 }, () => ({ role: 'user' as const, text: 'y'.repeat(3000) })),
    });
    const draft = draftTestCase(long, flatAgent);
    expect(draft.caller.script).toHaveLength(49);
    expect(draft.caller.script![0]).toHaveLength(2000);
    expect(draft.max_turns).toBe(50);
    expect(draft.name).toHaveLength(255);
  });

  it.each<[string | undefined, string]>([
    ['pl', 'pl'],
    ['en-US', 'en-US'],
    ['EN-gb', 'en-gb'],
    [' de ', 'de'],
    [undefined, 'en'],
    ['', 'en'],
    ['english', 'en'],
    ['x', 'en'],
    ['pt_BR', 'en'],
  ])("the caller speaks the agent's language: %s gives %s", (language, expected) => {
    expect(draftLanguage(language)).toBe(expected);
    expect(draftTestCase(call({ language }), flatAgent).caller.language).toBe(expected);
  });

  it("a call's keypad entry makes a voice case, whose script replays it as keys (it saves as it is)", () => {
    const keyed = call({
      transcript: [
        { role: 'assistant', text: 'Your account number?' },
        { role: 'user', text: '[pressed 42]' },
      ],
    });
    const draft = draftTestCase(keyed, flatAgent);
    expect(draft).toMatchObject({ mode: 'voice', caller: { script: ['[pressed 42]'] } });
    expect(lintTestCase(draft, flatAgent)).toEqual([]);
  });
});
