import { beforeAll, describe, expect, it } from 'vitest';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { accountServiceAgent, chatUntilEnd, flowPath } from '../support/flow-chat.ts';

/**
 * Agents that are conversation flows from the start: the flow template (identity check, then the
 * account or the end) and a call script that branches (`POST /agents/from-script`), each talked to
 * over chat and taken both ways.
 */
const api = apiClient();
let org: TestOrganization;

beforeAll(async () => {
  org = await newOrganization('Flow authoring');
});

describe('the flow template', () => {
  let agentId: string;

  beforeAll(async () => {
    const listed = await api.request('GET', '/agent-templates', { key: org.key });
    const template = listed.body.items.find((item: { id: string }) => item.id === 'account-service');
    expect(template).toMatchObject({ flow: true, variables: [{ name: 'company_name', required: true }] });
    expect(
      listed.body.items.filter((item: { flow: boolean }) => !item.flow).map((item: { id: string }) => item.id),
    ).toContain('dental-reminders');
    const created = await accountServiceAgent(org.key);
    expect(created.workflow_definition.nodes.map((node) => node.id)).toEqual([
      'start',
      'account',
      'not_verified',
      'done',
      'global',
    ]);
    expect(created.workflow_definition.nodes[0]!.greeting).toBe(
      'Hello, this is North Bank. Before we talk about your account, I need to check who you are.',
    );
    agentId = created.public_id;
  });

  it('a verified caller reaches the account, then says goodbye', async () => {
    const { session, run } = await chatUntilEnd(
      org.key,
      agentId,
      ['Yes, it is the first of May 1980', 'That is all, goodbye'],
      { initial_context: { date_of_birth: '1980-05-01' } },
    );
    expect(session.of('text').map((frame) => frame.text)).toEqual([
      'Hello, this is North Bank. Before we talk about your account, I need to check who you are.',
      'Thank you, you are verified.',
      'How can I help with your account?',
      'Thank you for calling North Bank. Goodbye.',
    ]);
    expect(run.gathered_context).toEqual({ identity_confirmed: true, call_disposition: 'resolved' });
    expect(flowPath(run)).toEqual([
      ['start', 'account', 'identity_confirmed == true held'],
      ['account', 'done', 'the model judged "The caller has no more questions, or says "goodbye""'],
      ['done', null, null],
    ]);
  });

  it('a caller who cannot confirm is not verified: the call ends before the account', async () => {
    const { run } = await chatUntilEnd(org.key, agentId, ["No, I don't remember"]);
    expect(run.gathered_context).toEqual({ identity_confirmed: false, call_disposition: 'not_verified' });
    expect(flowPath(run).map(([node]) => node)).toEqual(['start', 'not_verified']);
  });

  it('generate_with_ai does not apply to a flow template (422)', async () => {
    const refused = await api.request('POST', '/agents/from-template', {
      key: org.key,
      body: {
        template_id: 'account-service',
        variables: { company_name: 'North Bank' },
        language: 'en',
        agent_name: 'Never',
        generate_with_ai: true,
      },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({ type: 'value_error', loc: ['body', 'generate_with_ai'] });
  });
});

describe.skipIf(needsLocalStack)('a call script that branches', () => {
  const SCRIPT = [
    'Hello, this is North Bank.',
    'This call is recorded.',
    'Are you an existing customer?',
    'If "yes": May I have your name?',
    'If "yes": Thank you, an advisor will call you back. Goodbye.',
    'If "no": Would you like to open an account?',
    'What is your email?',
  ].join('\n');
  let analysis: Record<string, any>;
  let agentId: string;

  beforeAll(async () => {
    const analyzed = await api.request('POST', '/agent-templates/analyze-script', {
      key: org.key,
      body: { script_text: SCRIPT, language: 'en' },
    });
    expect(analyzed.status, analyzed.text).toBe(200);
    analysis = analyzed.body;
    expect(analysis.call_flow.branches).toEqual([
      {
        question: 'Are you an existing customer?',
        answer: 'yes',
        steps: ['May I have your name?'],
        closing: 'Thank you, an advisor will call you back. Goodbye.',
        source: 'script',
      },
      {
        question: 'Are you an existing customer?',
        answer: 'no',
        steps: ['Would you like to open an account?'],
        closing: null,
        source: 'script',
      },
    ]);
    const created = await api.request('POST', '/agents/from-script', {
      key: org.key,
      body: { agent_name: 'Branching script', analysis },
    });
    expect(created.status, created.text).toBe(200);
    agentId = created.body.public_id;
    expect(Object.keys(created.body.workflow_definition)).toEqual(['nodes', 'edges']);
  });

  it('"yes": the branch asks its own question and ends with its closing', async () => {
    const { session, run } = await chatUntilEnd(org.key, agentId, ['Hello', 'Yes, I am', 'Anna Nowak']);
    expect(session.of('text').map((frame) => frame.text)).toEqual([
      'Hello, this is North Bank. This call is recorded.',
      'Are you an existing customer?',
      'May I have your name?',
      'Thank you, an advisor will call you back. Goodbye.',
    ]);
    expect(run.gathered_context).toEqual({ name: 'Anna Nowak', call_disposition: 'completed' });
    expect(flowPath(run).map(([node, target]) => [node, target])).toEqual([
      ['start', 'step_1'],
      ['step_1', 'branch_1_1'],
      ['branch_1_1', 'end_1'],
      ['end_1', null],
    ]);
  });

  it('"no": the branch asks its question, then the call goes on with the steps after it', async () => {
    const { session, run } = await chatUntilEnd(org.key, agentId, [
      'Hello',
      'No, not yet',
      'Maybe later',
      'anna@example.com',
    ]);
    expect(
      session
        .of('text')
        .map((frame) => frame.text)
        .slice(2),
    ).toEqual(['Would you like to open an account?', 'What is your email?', 'Thank you for your time. Goodbye.']);
    expect(run.gathered_context).toEqual({ email: 'anna@example.com', call_disposition: 'completed' });
    expect(flowPath(run).map(([node]) => node)).toEqual(['start', 'step_1', 'branch_2_1', 'step_2', 'end']);
  });

  it('a branch on no step, or generate_with_ai with branches, is a 422 and creates nothing', async () => {
    const misplaced = structuredClone(analysis);
    misplaced.call_flow.branches[1].question = 'Do you like cats?';
    const refused = await api.request('POST', '/agents/from-script', {
      key: org.key,
      body: { agent_name: 'Never', analysis: misplaced, generate_with_ai: true },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail.map((item: { loc: unknown[] }) => item.loc)).toEqual([
      ['body', 'analysis', 'call_flow', 'branches', 1, 'question'],
      ['body', 'generate_with_ai'],
    ]);
    const agents = await api.request('GET', '/agents', { key: org.key });
    expect(agents.body.map((agent: { name: string }) => agent.name)).not.toContain('Never');
  });
});
