import { describe, expect, it } from 'vitest';
import { callerAction, isVoiceOnly } from '../../shared/domain/caller-actions.ts';
import { lintTestCase } from '../../shared/domain/agent-tests.ts';
import { callerRequest } from '../../shared/domain/agent-test-runs.ts';
import { heardTranscript, testCallerNumber } from '../../shared/domain/voice-test-line.ts';
import { simulatedAnswerer, simulatedOutcome } from '../../local/carrier/callee-directory.ts';
import { parseArguments, parseFrame } from '../../shared/services/test-conversation.ts';

describe("a voice caller's turn", () => {
  it.each([
    ['Hello, I need a visit.', { kind: 'say', text: 'Hello, I need a visit.' }],
    ['  [pressed 1234#] ', { kind: 'keys', keys: '1234#' }],
    ['[pressed *0A]', { kind: 'keys', keys: '*0A' }],
    ['[silence]', { kind: 'silence' }],
    ['[Silence]', { kind: 'silence' }],
    // Not a key of the keypad, or words around it: said as written.
    ['[pressed 1x]', { kind: 'say', text: '[pressed 1x]' }],
    ['[pressed ]', { kind: 'say', text: '[pressed ]' }],
    ['I pressed [pressed 1]', { kind: 'say', text: 'I pressed [pressed 1]' }],
  ])('%j is %j', (turn, action) => expect(callerAction(turn)).toEqual(action));

  it('keys and silence only a voice case carries out: a text case refuses them at the line', () => {
    const testCase = (mode?: 'text' | 'voice') => ({
      mode,
      max_turns: 4,
      caller: { script: ['Hello', '[pressed 2]', '[silence]'] },
      tool_mocks: [],
      expectations: [{ type: 'ended_by_agent' as const, ended: true }],
    });
    const subject = { tools: [], steps: null, variables: null, dispositions: [] };
    expect(lintTestCase(testCase('voice'), subject)).toEqual([]);
    for (const mode of ['text', undefined] as const)
      expect(lintTestCase(testCase(mode), subject)).toEqual([
        {
          path: ['caller', 'script', 1],
          message: "'[pressed 2]' is a key press or a silence: only a voice case (mode 'voice') can carry it out",
        },
        {
          path: ['caller', 'script', 2],
          message: "'[silence]' is a key press or a silence: only a voice case (mode 'voice') can carry it out",
        },
      ]);
    expect(isVoiceOnly('Hello')).toBe(false);
  });

  it('the model playing a voice caller is told how to press keys and keep silent; a text caller is not', () => {
    const caller = { persona: 'Ewa', goal: 'A visit', language: 'en', behaviour: ['presses_keys'] };
    expect(callerRequest(caller, [], 'voice').system).toContain('[pressed 1]');
    expect(callerRequest(caller, [], 'text').system).not.toContain('[pressed');
  });
});

describe("a voice test's transcript: what the caller heard, in the line's order", () => {
  it.each([
    [
      'turns and answers in time order, words heard in a row one line',
      [
        { role: 'assistant' as const, atMs: 0, text: 'North Clinic,' },
        { role: 'assistant' as const, atMs: 300, text: 'hello.' },
        { role: 'user' as const, atMs: 900, text: 'A visit, please.' },
        { role: 'assistant' as const, atMs: 2000, text: 'Monday?' },
      ],
      ['assistant: North Clinic, hello.', 'user: A visit, please.', 'assistant: Monday?'],
    ],
    [
      'an answer cut by the caller: its words, heard only after the cut, stand before the caller who cut it',
      [
        { role: 'user' as const, atMs: 400, text: 'Monday, please.' },
        { role: 'assistant' as const, atMs: 0, text: 'We have free visits on' },
        { role: 'user' as const, atMs: 1500, text: '[pressed 42#]' },
      ],
      ['assistant: We have free visits on', 'user: Monday, please.', 'user: [pressed 42#]'],
    ],
    [
      'at the same moment, in the order noted',
      [
        { role: 'user' as const, atMs: 100, text: 'Hi' },
        { role: 'assistant' as const, atMs: 100, text: 'Hello' },
      ],
      ['user: Hi', 'assistant: Hello'],
    ],
    ['nothing on the line', [], []],
  ])('%s', (_case, events, lines) =>
    expect(heardTranscript(events).map((line) => `${line.role}: ${line.text}`)).toEqual(lines),
  );
});

describe("a test caller's reading of the session's frames", () => {
  it.each([
    ['{"event":"media","media":{"payload":"AA=="}}', { event: 'media', media: { payload: 'AA==' } }],
    ['{"event":"mark"}', { event: 'mark' }],
    // Not a frame: ignored (a JSON value that is no object would fail the reader's `frame.event`).
    ['not json', undefined],
    ['null', undefined],
    ['5', undefined],
    ['["event"]', undefined],
  ])('%s', (data, frame) => {
    expect(parseFrame(Buffer.from(data))).toEqual(frame);
  });

  it.each([
    ['{"day":"Monday"}', { day: 'Monday' }],
    [undefined, {}],
    ['[1]', {}],
    ['{broken', {}],
  ])("a tool call's arguments %s", (text, parsed) => {
    expect(parseArguments(text)).toEqual(parsed);
  });
});

describe("a voice case's number at the local carrier", () => {
  it.each([
    [0, '+15550000000'],
    [0.123456789, '+15551234560'],
    [0.9999999, '+15559999990'],
  ])('from %s: %s', (random, number) => {
    expect(testCallerNumber(random)).toBe(number);
    // Answered by a person in the callee directory (last digit 0, none of its special endings).
    expect(simulatedOutcome(number)).toBe('answered');
    expect(simulatedAnswerer(number)).toBe('human');
  });
});
