import { describe, expect, it } from 'vitest';
import {
  analysisOverdue,
  analysisAnswerSchema,
  analysisPlanWithGoal,
  newMemories,
  analysisRequest,
  analysisRetryDelayMs,
  completedAnalysis,
  failedAnalysis,
  initialAnalysis,
} from '../../shared/domain/call-analysis.ts';
import { CallAnalysisPlan } from '../../shared/schemas/call-analysis.ts';

const schema = {
  type: 'object',
  properties: { preferred_day: { type: 'string' }, wants_callback: { type: 'boolean' } },
  required: ['preferred_day', 'wants_callback'],
};
const fullPlan = {
  summary_prompt: 'Two sentences.',
  structured_data_schema: schema,
  success_criteria: 'A visit is booked.',
};

describe('CallAnalysisPlan', () => {
  it.each([
    ['an empty plan (the default summary)', {}, true],
    ['every part', fullPlan, true],
    ['a schema that is not of an object', { structured_data_schema: { type: 'string' } }, false],
    [
      'a schema zod cannot read',
      { structured_data_schema: { type: 'object', properties: { a: { type: 'frobnicate' } } } },
      false,
    ],
    ['an unknown key', { summary: 'x' }, false],
    ['empty criteria', { success_criteria: '' }, false],
  ])('%s', (_name, plan, valid) => {
    expect(CallAnalysisPlan.safeParse(plan).success).toBe(valid);
  });
});

describe('initialAnalysis', () => {
  it.each([
    ['no plan', null, true, null],
    ['a plan, no transcript (never answered)', {}, false, null],
    ['a plan and a transcript', {}, true, 'pending'],
  ] as const)('%s', (_name, plan, hasTranscript, status) => {
    expect(initialAnalysis(plan, hasTranscript)?.status ?? null).toBe(status);
  });
});

describe('analysisPlanWithGoal', () => {
  it.each([
    ['no plan: no analysis', null, 'Book a visit', null],
    ['no goal: the plan as it is', fullPlan, null, fullPlan],
    [
      'a goal and no criteria: success is the goal',
      { summary_prompt: 'Short.' },
      'Book a visit',
      { summary_prompt: 'Short.', success_criteria: "The campaign's goal was reached: Book a visit." },
    ],
    [
      'a goal and criteria: both',
      fullPlan,
      'Book a visit',
      { ...fullPlan, success_criteria: "The campaign's goal was reached: Book a visit. And: A visit is booked." },
    ],
  ] as const)('%s', (_name, plan, goal, expected) => {
    expect(analysisPlanWithGoal(plan, goal)).toEqual(expected);
  });
});

describe('newMemories (the assistant after a call)', () => {
  const note = (content: string, fields: Record<string, unknown> = {}) => ({
    content,
    topic: 'caller',
    due_at: null,
    about_caller: true,
    ...fields,
  });
  it.each([
    ['a new note', [note('Prefers mornings.')], [], [note('Prefers mornings.')]],
    [
      'one the agent has, in other case and spacing',
      [note('prefers  MORNINGS')],
      [{ content: 'Prefers mornings.' }],
      [],
    ],
    ['a repeat within the answer', [note('Call Ann.'), note('call ann')], [], [note('Call Ann.')]],
    [
      'a task: due_at with an offset, stored in UTC',
      [note('Call back.', { due_at: '2026-12-01T10:00:00+01:00' })],
      [],
      [note('Call back.', { due_at: '2026-12-01T09:00:00.000Z' })],
    ],
    [
      'a due_at without an offset or not a date: a note',
      [note('A.', { due_at: '2026-12-01T10:00:00' }), note('B.', { due_at: 'soon' })],
      [],
      [note('A.'), note('B.')],
    ],
    [
      'at most five',
      Array.from({ length: 7 }, (_, index) => note(`Fact ${index}.`)),
      [],
      Array.from({ length: 5 }, (_, index) => note(`Fact ${index}.`)),
    ],
  ])('%s', (_name, proposed, existing, expected) => {
    expect(newMemories(proposed, existing)).toEqual(expected);
  });
});

describe('analysisAnswerSchema', () => {
  const answer = {
    summary: 'Anna moved her visit.',
    structured_data: { preferred_day: 'Tuesday', wants_callback: false },
    success_evaluation: { successful: true, reason: 'Booked.' },
  };
  it.each([
    ['the full answer to the full plan', fullPlan, answer, true],
    [
      'structured data missing a required field',
      fullPlan,
      { ...answer, structured_data: { preferred_day: 'Tuesday' } },
      false,
    ],
    [
      'structured data of the wrong type',
      fullPlan,
      { ...answer, structured_data: { preferred_day: 3, wants_callback: false } },
      false,
    ],
    [
      'no evaluation where criteria are set',
      fullPlan,
      { summary: 'x', structured_data: answer.structured_data },
      false,
    ],
    ['an empty summary', {}, { summary: '' }, false],
    ['a summary alone for an empty plan', {}, { summary: 'x' }, true],
  ])('%s', (_name, plan, candidate, valid) => {
    expect(analysisAnswerSchema(CallAnalysisPlan.parse(plan)).safeParse(candidate).success).toBe(valid);
  });
});

describe('analysisRequest', () => {
  const transcript = [
    { role: 'assistant' as const, text: 'Hi Anna, this is Smile.' },
    { role: 'user' as const, text: 'I want Tuesday.' },
  ];
  it('asks for what the plan holds, with the transcript and the disposition', () => {
    const request = analysisRequest(CallAnalysisPlan.parse(fullPlan), transcript, 'booked');
    expect(request.system).toContain('summary: Two sentences.');
    expect(request.system).toContain('structured_data:');
    expect(request.system).toMatch(/success_evaluation: .*: A visit is booked\.$/m);
    expect(request.prompt).toBe(
      'Disposition chosen by the agent: booked\nTranscript:\nAgent: Hi Anna, this is Smile.\nPerson: I want Tuesday.',
    );
  });
  it("a flow's call: the steps it went through, and why it moved on, before the transcript", () => {
    const step = (node_id: string, name: string, reason: string | null) => ({
      node_id,
      name,
      entered_at: '2026-11-26T10:00:00.000Z',
      left_at: null,
      edge: null,
      reason,
    });
    const request = analysisRequest({}, transcript, 'card', [
      step('start', 'Greeting', 'age >= 18 held'),
      step('offer', 'Offer', 'the model judged "The caller wants the "card""'),
      step('card', 'Card', null),
    ]);
    expect(request.prompt).toBe(
      [
        'Disposition chosen by the agent: card',
        'Steps of the conversation flow the call went through, in order:',
        '- Greeting, then Offer: age >= 18 held',
        '- Offer, then Card: the model judged "The caller wants the "card""',
        '- Card (the call ended here)',
        'Transcript:',
        'Agent: Hi Anna, this is Smile.',
        'Person: I want Tuesday.',
      ].join('\n'),
    );
    expect(analysisRequest({}, transcript, null, []).prompt.startsWith('Transcript:')).toBe(true);
  });
  it('asks for a summary only with an empty plan', () => {
    const request = analysisRequest({}, transcript, null);
    expect(request.system).toMatch(/^summary: Summarize/m);
    expect(request.system).not.toContain('structured_data');
    expect(request.system).not.toContain('success_evaluation');
    expect(request.prompt.startsWith('Transcript:')).toBe(true);
  });
});

describe('results', () => {
  it('waits 2 s then 8 s between attempts', () => {
    expect([2, 3].map(analysisRetryDelayMs)).toEqual([2_000, 8_000]);
  });
  it('keeps only the parts asked for, and the reason of a failure', () => {
    expect(completedAnalysis({ summary: 'x' }, 2, 'T')).toEqual({
      status: 'completed',
      summary: 'x',
      structured_data: null,
      success_evaluation: null,
      error: null,
      attempts: 2,
      completed_at: 'T',
    });
    expect(failedAnalysis('e'.repeat(600), 3, 'T')).toMatchObject({
      status: 'failed',
      error: 'e'.repeat(500),
      attempts: 3,
    });
  });
});

describe('the deadline of a pending analysis', () => {
  const ended = '2026-11-26T10:00:00.000Z';
  it.each([
    ['just ended', ended, '2026-11-26T10:00:01.000Z', false],
    ['at the deadline', ended, '2026-11-26T10:30:00.000Z', false],
    ['past it', ended, '2026-11-26T10:30:00.001Z', true],
    ['never ended', null, '2026-11-27T10:00:00.000Z', false],
  ])('%s', (_case, endedAt, now, overdue) => {
    expect(analysisOverdue(endedAt, new Date(now))).toBe(overdue);
  });
});
