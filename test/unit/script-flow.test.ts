import { describe, expect, it } from 'vitest';
import { ScriptReading, scriptReadingPrompt } from '../../shared/ai/script-reading.ts';
import { deterministicTransition, modelTransitions } from '../../shared/domain/flow-transitions.ts';
import { lintFlow, type FlowDefinition as FlowRecord } from '../../shared/domain/flows.ts';
import { misplacedBranches, scriptFlow, variableName, type ScriptCallFlow } from '../../shared/domain/script-flow.ts';
import { FlowDefinition } from '../../shared/schemas/flows.ts';
import { AGENT_TEMPLATES, fillTemplateDeep } from '../../shared/templates/catalogue.ts';
import { readScriptPrompt } from '../../local/fakes/script-reader.ts';

/**
 * A call script that branches becomes a conversation flow (shared/domain/script-flow.ts), and the
 * local fake model reads branches from `If "<answer>": …` lines; the flow template is a valid flow.
 */
const BRANCHING = `Hello, this is North Bank.
This call is recorded.
Are you an existing customer?
If "yes": May I have your name?
If "yes": Thank you, an advisor will call you back. Goodbye.
If "no": Would you like to open an account?
If they say they are busy: Offer to call back tomorrow.
What is your email?`;

const read = (script: string) =>
  readScriptPrompt(scriptReadingPrompt({ script, website: null, companyName: '', language: 'en' }));

const flat: ScriptCallFlow = {
  greeting: 'Hi.',
  steps: ['Q1?', 'Q2?'],
  objections: [],
  mandatory_phrases: [],
  data_to_collect: [],
  branches: [],
};

describe('the local fake model reading branches', () => {
  it('an `If "<answer>": …` line is a branch of the question before it: questions its steps, other words its closing', () => {
    const reading = read(BRANCHING);
    expect(ScriptReading.parse(reading)).toEqual(reading);
    expect(reading.call_flow).toEqual({
      greeting: 'Hello, this is North Bank.',
      steps: ['Are you an existing customer?', 'What is your email?'],
      objections: [{ objection: 'they say they are busy', answer: 'Offer to call back tomorrow.' }],
      mandatory_phrases: ['This call is recorded.'],
      data_to_collect: ['name', 'email'],
      branches: [
        {
          question: 'Are you an existing customer?',
          answer: 'yes',
          steps: ['May I have your name?'],
          closing: 'Thank you, an advisor will call you back. Goodbye.',
        },
        {
          question: 'Are you an existing customer?',
          answer: 'no',
          steps: ['Would you like to open an account?'],
          closing: null,
        },
      ],
    });
  });

  it('a script without quoted answers has no branches', () => {
    expect(read('Hi.\nWhat is your name?\nIf they say no: Thank them.').call_flow.branches).toEqual([]);
  });
});

describe('scriptFlow', () => {
  const callFlow = () => {
    const { call_flow } = read(BRANCHING);
    return { ...call_flow, greeting: call_flow.greeting };
  };

  it('a script without branches stays the flat definition', () => {
    expect(scriptFlow(flat, 'North')).toBeNull();
  });

  it('makes a valid flow: greeting and notices not interruptible, a transition per answer, branches that end or go on', () => {
    const flow = scriptFlow(callFlow(), 'North Bank')!;
    expect(FlowDefinition.safeParse(flow).success).toBe(true);
    expect(lintFlow(flow)).toEqual([]);
    expect(flow.nodes).toEqual([
      {
        id: 'start',
        type: 'startCall',
        name: 'Greeting',
        greeting: 'Hello, this is North Bank. This call is recorded.',
        prompt: 'Greet the caller and listen.',
        interruptible: false,
      },
      {
        id: 'global',
        type: 'globalNode',
        name: 'Objections',
        prompt:
          'When the caller objects, answer as the script does:\n- they say they are busy: Offer to call back tomorrow.',
      },
      {
        id: 'step_1',
        type: 'agentNode',
        name: '1. Are you an existing customer?',
        prompt: 'Say "Are you an existing customer?" and wait for the answer.',
      },
      {
        id: 'step_2',
        type: 'agentNode',
        name: '2. What is your email?',
        prompt: 'Say "What is your email?" and wait for the answer.',
        extract: [{ name: 'email', type: 'string', hint: "The caller's email" }],
      },
      {
        id: 'branch_1_1',
        type: 'agentNode',
        name: 'Branch 1.1 (yes) May I have your name?',
        prompt: 'Say "May I have your name?" and wait for the answer.',
        extract: [{ name: 'name', type: 'string', hint: "The caller's name" }],
      },
      {
        id: 'end_1',
        type: 'endCall',
        name: 'End of branch 1 (yes)',
        closing: 'Thank you, an advisor will call you back. Goodbye.',
      },
      {
        id: 'branch_2_1',
        type: 'agentNode',
        name: 'Branch 2.1 (no) Would you like to open an account?',
        prompt: 'Say "Would you like to open an account?" and wait for the answer.',
      },
      { id: 'end', type: 'endCall', name: 'Goodbye' },
    ]);
    expect(flow.edges).toEqual([
      { source: 'start', target: 'step_1' },
      { source: 'step_1', target: 'branch_1_1', condition: 'The caller answers "yes"', label: 'yes' },
      { source: 'branch_1_1', target: 'end_1' },
      { source: 'step_1', target: 'branch_2_1', condition: 'The caller answers "no"', label: 'no' },
      { source: 'branch_2_1', target: 'step_2' },
      {
        source: 'step_1',
        target: 'step_2',
        condition: 'The caller answered, and none of the other answers fits',
        label: 'Other answer',
      },
      { source: 'step_2', target: 'end' },
    ]);
  });

  it('the question step offers the model one transition per answer; the other steps move on as the caller answers', () => {
    const flow = scriptFlow(callFlow(), 'North Bank')!;
    const step = (id: string) => flow.nodes.find((node) => node.id === id)!;
    expect(modelTransitions(flow, 'step_1').map((transition) => transition.functionName)).toEqual([
      'go_to_branch_1_1',
      'go_to_branch_2_1',
      'go_to_step_2',
    ]);
    expect(deterministicTransition(flow, step('start'), {})).toMatchObject({ edge: { target: 'step_1' } });
    expect(deterministicTransition(flow, step('branch_2_1'), {})).toMatchObject({ edge: { target: 'step_2' } });
    // A step that extracts waits for its variable.
    expect(deterministicTransition(flow, step('branch_1_1'), {})).toBeNull();
    expect(deterministicTransition(flow, step('branch_1_1'), { name: 'Ann' })).toMatchObject({
      edge: { target: 'end_1' },
    });
  });

  it('no greeting: the company introduces itself; no notice: the greeting may be cut', () => {
    const flow = scriptFlow({ ...callFlow(), greeting: null, mandatory_phrases: [] }, 'North Bank')!;
    expect(flow.nodes[0]).toEqual({
      id: 'start',
      type: 'startCall',
      name: 'Greeting',
      greeting: 'Hello, this is North Bank.',
      prompt: 'Greet the caller and listen.',
    });
  });

  it('a datum no step names is extracted in the first step', () => {
    const flow = scriptFlow({ ...callFlow(), data_to_collect: ['budget'] }, 'North Bank')!;
    expect(flow.nodes.find((node) => node.id === 'step_1')).toMatchObject({
      extract: [{ name: 'budget', type: 'string' }],
    });
    expect(lintFlow(flow)).toEqual([]);
  });

  it('a branch whose question is none of the steps is misplaced', () => {
    expect(
      misplacedBranches({
        steps: ['Q1?'],
        branches: [
          { question: ' q1? ', answer: 'yes', steps: [], closing: null },
          { question: 'Q9?', answer: 'no', steps: [], closing: null },
        ],
      }),
    ).toEqual([{ branch: 1, message: 'the question is not one of the steps' }]);
  });

  it.each([
    ['name', 'name'],
    ['date of birth', 'date_of_birth'],
    ['imię', 'imie'],
    ['Adres e-mail', 'adres_e_mail'],
    ['2nd phone', null],
    ['call disposition', null],
    ['???', null],
  ])('the variable of %j is %j', (datum, name) => {
    expect(variableName(datum)).toBe(name);
  });
});

describe('the flow templates', () => {
  it.each(AGENT_TEMPLATES.filter((template) => 'nodes' in template.workflow_definition).map((t) => [t.id, t]))(
    '%s is a valid flow once its variables are filled, with its dispositions among its codes',
    (_id, template) => {
      const filled = fillTemplateDeep(template.workflow_definition, { company_name: 'North Bank' });
      expect(FlowDefinition.safeParse(filled).error?.issues).toBeUndefined();
      expect(JSON.stringify(filled)).not.toMatch(/\{\{company_name\}\}/);
      for (const node of (filled as FlowRecord).nodes)
        if (node.type === 'endCall' && node.disposition)
          expect(Object.keys(template.call_disposition_codes)).toContain(node.disposition);
    },
  );

  it('at least one template is a flow', () => {
    expect(AGENT_TEMPLATES.some((template) => 'nodes' in template.workflow_definition)).toBe(true);
  });
});
