import { describe, expect, it } from 'vitest';
import { boundedContext, messageChars, omittedNote, type ContextBudget } from '../../media/src/agent/context-window.ts';
import type { ChatMessage } from '../../media/src/agent/interfaces.ts';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const agent = (content: string): ChatMessage => ({ role: 'assistant', content });
const instruction = (content: string): ChatMessage => ({ role: 'system', content });
const toolCall = (id: string, args: string): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: args } }],
});
const toolResult = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content });

const x = (n: number) => 'x'.repeat(n);
const budget: ContextBudget = { maxChars: 100, maxMessageChars: 60 };
const texts = (messages: ChatMessage[]) => messages.map((message) => message.content ?? `call:${message.role}`);

const cases: { name: string; history: ChatMessage[]; expected: string[] }[] = [
  { name: 'empty', history: [], expected: [] },
  {
    name: 'a conversation within the budget is sent whole',
    history: [agent('Hi'), user(x(40)), agent(x(50))],
    expected: ['Hi', x(40), x(50)],
  },
  {
    name: 'the first message and the latest turns are kept, the middle left out with a note',
    history: [agent('Hello'), user(x(30)), agent(x(30)), user(x(30)), agent(x(30)), user('last?')],
    expected: ['Hello', omittedNote(1).content as string, x(30), x(30), x(30), 'last?'],
  },
  {
    name: 'instructions added during the call stay when they fit',
    history: [agent('Hello'), instruction('be brief'), user(x(40)), agent(x(40)), user(x(40)), agent(x(40))],
    expected: ['Hello', omittedNote(2).content as string, 'be brief', x(40), x(40)],
  },
  {
    name: 'a tool result never goes without the call that asked for it',
    history: [agent('Hello'), user(x(20)), toolCall('a', x(30)), toolResult('a', x(30)), agent(x(30))],
    expected: ['Hello', omittedNote(3).content as string, x(30)],
  },
  {
    name: 'a tool call and its result are kept together when they fit',
    history: [agent('Hello'), user(x(50)), toolCall('a', x(10)), toolResult('a', x(20)), agent(x(20))],
    expected: ['Hello', omittedNote(1).content as string, 'call:assistant', x(20), x(20)],
  },
  {
    name: 'the latest turn is kept even when it alone is over the budget (cut to the longest message)',
    history: [agent('Hello'), user(x(30)), user(x(500))],
    expected: ['Hello', omittedNote(1).content as string, `${x(60)}… (cut)`],
  },
];

describe('the context sent to the model', () => {
  it.each(cases)('$name', ({ history, expected }) => {
    expect(texts(boundedContext(history, budget))).toEqual(expected);
  });

  it('keeps a 30-minute conversation (a turn every 5 s) within the budget at every turn', () => {
    const history: ChatMessage[] = [agent('Hello, this is the clinic.')];
    let largest = 0;
    for (let turn = 0; turn < 360; turn++) {
      history.push(user(`Question ${turn}: ${x(200)}`), agent(`Answer ${turn}: ${x(300)}`));
      const sent = boundedContext(history);
      largest = Math.max(
        largest,
        sent.reduce((sum, message) => sum + messageChars(message), 0),
      );
      expect(sent[0]!.content).toBe('Hello, this is the clinic.');
      expect(sent.at(-1)!.content).toMatch(new RegExp(`^Answer ${turn}:`));
    }
    expect(largest).toBeLessThanOrEqual(48_000 + 200);
  });
});
