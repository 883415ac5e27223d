import { describe, expect, it, vi } from 'vitest';
import { buildCallPlan } from '../../media/src/agent/call-plan.ts';
import type { LanguageModel, ModelEvent } from '../../media/src/agent/interfaces.ts';
import { CallTexts } from '../../media/src/call/call-texts.ts';
import { AgentTools } from '../../media/src/call/agent-tools.ts';
import { FlowBrain } from '../../media/src/call/flow-brain.ts';
import { wrapAnswer } from '../../media/src/call/brain.ts';
import type { LiveEvent } from '../../media/src/call/live-tap.ts';
import { fakeAnswer, scriptedModel } from '../support/brains.ts';
import { callInput } from '../support/voice.ts';

/**
 * The flow brain with a scripted model: what each step offers the model, the rules it applies to
 * the model's calls, and what it does on entering an end, a transfer or a step not interruptible.
 */
const FLOW = {
  nodes: [
    {
      id: 'start',
      type: 'startCall',
      name: 'Greeting',
      prompt: 'Ask whether the caller consents.',
      tools: ['lookup_order'],
      extract: [{ name: 'consent', type: 'boolean' }],
    },
    { id: 'disclosure', type: 'agentNode', name: 'Disclosure', prompt: 'Read the terms.', interruptible: false },
    { id: 'done', type: 'endCall', name: 'Done', closing: 'Bye now.', disposition: 'confirmed' },
    { id: 'human', type: 'transferCall', name: 'Human' },
    { id: 'global', type: 'globalNode', name: 'Everywhere', prompt: 'Always be kind.' },
  ],
  edges: [
    { source: 'start', target: 'disclosure', condition: 'The caller consents' },
    { source: 'disclosure', target: 'done', condition: 'The terms are read' },
    { source: 'global', target: 'human', condition: 'The caller asks for a person' },
  ],
};
const TOOL = {
  name: 'lookup_order',
  description: 'Looks up an order',
  parameters: { type: 'object', properties: {} },
} as never;

function flowBrain(llm: LanguageModel, { transferable = true, flow = FLOW as Record<string, unknown> } = {}) {
  const events: LiveEvent[] = [];
  const gathered: Record<string, unknown> = {};
  const runLogs: string[] = [];
  const transfer = vi.fn(async () => {});
  const closing = vi.fn();
  const call = {
    plan: buildCallPlan(
      callInput({
        workflowDefinition: flow,
        tools: [TOOL],
        transferable,
        workflowConfigurations: transferable
          ? { transfer: { destinations: [{ name: 'desk', address: '+48221234567', description: 'The desk' }] } }
          : {},
      }),
    ),
    providers: { llm },
    organizationId: 1,
    runLog: (_level: string, message: string) => void runLogs.push(message),
  };
  let clock = 0;
  const options = {
    chat: false,
    tools: new AgentTools(call, {
      gathered,
      closing,
      transfer,
      texts: new CallTexts(call, { gathered, transcriptEvent: () => {} }),
      log: () => {},
      runRef: () => '1.2.3',
    }),
    sessionEvent: (event: LiveEvent) => void events.push(event),
    isEnded: () => false,
    log: () => {},
    runRef: () => '1.2.3',
  };
  const part = new FlowBrain(call, {
    ...options,
    gathered,
    variables: {},
    closing,
    transfer,
    now: () => new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)).toISOString(),
  });
  return { part, events, gathered, runLogs, transfer, closing };
}

const call = (name: string, args: object = {}): ModelEvent => ({
  type: 'tool_call',
  id: `call_${name}`,
  name,
  arguments: JSON.stringify(args),
});
const text = (value: string): ModelEvent => ({ type: 'text', text: value });
const toolNames = (request: { tools: { name: string }[] }) => request.tools.map((tool) => tool.name);

describe('the flow brain', () => {
  it('offers the step its own tools, save_variables and the transitions; the prompt names the step', async () => {
    const { llm, requests } = scriptedModel([[text('Do you consent?')]]);
    const { part } = flowBrain(llm);
    part.hearCaller('Hi');
    await part.answer(fakeAnswer().answer, 'Hi');
    expect(toolNames(requests[0]!)).toEqual([
      'lookup_order',
      'save_variables',
      'go_to_disclosure',
      'go_to_human',
      'end_call',
    ]);
    const system = String(requests[0]!.messages[0]!.content);
    expect(system).toContain('Always be kind.');
    expect(system).toContain('Current step: Greeting\nAsk whether the caller consents.');
    expect(system).toContain('- consent (boolean)');
  });

  it("refuses a step's own transition before its variables, and a tool the step does not offer", async () => {
    const { llm, requests } = scriptedModel([
      [call('go_to_disclosure'), call('transfer_call', { destination: 'desk' })],
      [text('First, do you consent?')],
    ]);
    const { part, gathered } = flowBrain(llm);
    part.hearCaller('Go on');
    await part.answer(fakeAnswer().answer, 'Go on');
    const results = requests[1]!.messages.filter((message) => message.role === 'tool').map((m) => m.content);
    expect(results).toEqual([
      JSON.stringify({ error: 'first extract consent with save_variables' }),
      JSON.stringify({ error: 'transfer_call is not offered in the step "Greeting"' }),
    ]);
    expect(gathered).toEqual({});
    expect(part.flowPath().map((step) => step.node_id)).toEqual(['start']);
  });

  it('after extraction the transition is taken; the new step is not interruptible; the path and events show it', async () => {
    const { llm, requests } = scriptedModel([
      [call('save_variables', { consent: 'yes' }), call('go_to_disclosure')],
      [text('These are the terms. Thank you.')],
    ]);
    const { part, gathered, events, runLogs } = flowBrain(llm);
    part.hearCaller('Yes');
    const { answer, said, held } = fakeAnswer();
    await part.answer(answer, 'Yes');
    expect(gathered).toEqual({ consent: true });
    expect(String(requests[1]!.messages[0]!.content)).toContain('Current step: Disclosure');
    expect(toolNames(requests[1]!)).toEqual(['go_to_done', 'go_to_human', 'end_call']);
    expect(said).toEqual(['These are the terms.', 'Thank you.']);
    expect(held).toEqual(said);
    expect(events.filter((event) => event.event === 'flow_step').map((event) => event.node_id)).toEqual([
      'start',
      'disclosure',
    ]);
    expect(part.flowPath()).toEqual([
      {
        node_id: 'start',
        name: 'Greeting',
        entered_at: '2026-01-01T00:00:00.000Z',
        left_at: '2026-01-01T00:00:01.000Z',
        edge: { source: 'start', target: 'disclosure' },
        reason: 'the model judged "The caller consents"',
      },
      {
        node_id: 'disclosure',
        name: 'Disclosure',
        entered_at: '2026-01-01T00:00:01.000Z',
        left_at: null,
        edge: null,
        reason: null,
      },
    ]);
    expect(runLogs).toContain('Flow: "Greeting" extracted consent=true');
  });

  it('an end step says its closing, sets its disposition and hangs up, without another model round', async () => {
    const { llm, requests } = scriptedModel([
      [call('save_variables', { consent: true }), call('go_to_disclosure')],
      [text('The terms.')],
      [call('go_to_done')],
    ]);
    const { part, gathered, closing } = flowBrain(llm);
    part.hearCaller('Yes');
    await part.answer(fakeAnswer().answer, 'Yes');
    part.hearCaller('Fine');
    const { answer, said, state } = fakeAnswer();
    await part.answer(answer, 'Fine');
    expect(said).toEqual(['Bye now.']);
    expect(state.hangUp).toBe(true);
    expect(gathered.call_disposition).toBe('confirmed');
    expect(closing).toHaveBeenCalled();
    expect(requests).toHaveLength(3);
  });

  it('a global transition from any step, before extraction: the transfer to the agent’s destination', async () => {
    const { llm } = scriptedModel([[call('go_to_human')]]);
    const { part, transfer } = flowBrain(llm);
    part.hearCaller('A person please');
    const { answer, state } = fakeAnswer();
    await part.answer(answer, 'A person please');
    expect(transfer).toHaveBeenCalledWith(
      expect.objectContaining({ name: 'desk' }),
      'global transition: the model judged "The caller asks for a person"',
    );
    expect(state.hangUp).toBe(true);
    expect(part.flowPath().map((step) => step.node_id)).toEqual(['start', 'human']);
  });

  it('a call that cannot be transferred (a chat) stays in its step', async () => {
    const { llm, requests } = scriptedModel([[call('go_to_human')], [text('I cannot transfer you.')]]);
    const { part, transfer } = flowBrain(llm, { transferable: false });
    part.hearCaller('A person please');
    await part.answer(fakeAnswer().answer, 'A person please');
    expect(transfer).not.toHaveBeenCalled();
    expect(requests[1]!.messages.at(-1)!.content).toBe(JSON.stringify({ error: 'this call cannot be transferred' }));
    expect(part.flowPath().map((step) => step.node_id)).toEqual(['start']);
  });

  it('the caller may end the call from any step: end_call with the call’s closing, after the flow’s own transitions', async () => {
    const { llm, requests } = scriptedModel([[text('Do you consent?')]]);
    const { part } = flowBrain(llm);
    part.hearCaller('Hi');
    await part.answer(fakeAnswer().answer, 'Hi');
    const system = String(requests[0]!.messages[0]!.content);
    expect(system).toMatch(
      /If the caller wants to end the call and no function above fits, say "Thank you for your time\. Goodbye\." and call end_call\.$/,
    );
    expect(requests[0]!.tools.at(-1)!.description).toMatch(/^Only when the caller wants to end the call now/);
  });

  it('a caller who says goodbye in a step that is not an end: the agent hangs up there, the path says why', async () => {
    const { llm, requests } = scriptedModel([[text('Thank you for your time. Goodbye.'), call('end_call')]]);
    const { part, closing, runLogs, gathered } = flowBrain(llm);
    part.hearCaller('Thank you, goodbye.');
    const { answer, said, state } = fakeAnswer();
    await part.answer(answer, 'Thank you, goodbye.');
    expect(said).toEqual(['Thank you for your time.', 'Goodbye.']);
    expect(state.hangUp).toBe(true);
    expect(closing).toHaveBeenCalled();
    expect(requests).toHaveLength(1);
    expect(gathered).toEqual({});
    expect(part.flowPath()).toEqual([
      {
        node_id: 'start',
        name: 'Greeting',
        entered_at: '2026-01-01T00:00:00.000Z',
        left_at: null,
        edge: null,
        reason: 'the caller wanted to end the call',
      },
    ]);
    expect(runLogs).toContain('Flow: the call ends in "Greeting" (the caller wanted to end the call)');
  });

  it('the flow’s own closing, when it has one, is what the caller ending the call hears', async () => {
    const { llm, requests } = scriptedModel([[call('end_call')]]);
    const { part } = flowBrain(llm, { flow: { ...FLOW, closing: 'Thank you for calling North Bank. Goodbye.' } });
    part.hearCaller('Bye');
    const { answer, said } = fakeAnswer();
    await part.answer(answer, 'Bye');
    expect(String(requests[0]!.messages[0]!.content)).toContain(
      'say "Thank you for calling North Bank. Goodbye." and call end_call.',
    );
    expect(said).toEqual(['Thank you for calling North Bank. Goodbye.']);
  });

  it('end_call without last words: the brain says the call’s closing, not interruptible in such a step', async () => {
    const { llm } = scriptedModel([
      [call('save_variables', { consent: true }), call('go_to_disclosure')],
      [text('The terms.')],
      [call('end_call')],
    ]);
    const { part } = flowBrain(llm);
    part.hearCaller('Yes');
    await part.answer(fakeAnswer().answer, 'Yes');
    part.hearCaller('Bye');
    const { answer, said, held, state } = fakeAnswer();
    await part.answer(answer, 'Bye');
    expect(said).toEqual(['Thank you for your time. Goodbye.']);
    expect(held).toEqual(said);
    expect(state).toEqual({ final: 'Thank you for your time. Goodbye.', hangUp: true });
    expect(part.flowPath().map((step) => [step.node_id, step.reason])).toEqual([
      ['start', 'the model judged "The caller consents"'],
      ['disclosure', 'the caller wanted to end the call'],
    ]);
  });
});

describe('an answer handed on (wrapAnswer: a flow step marking its words, an early answer holding them)', () => {
  it("reads the answer's state through, and does what it does but for the methods replaced", () => {
    const { answer, said, state, controller } = fakeAnswer();
    const settled = Promise.resolve(true);
    const wrapped = wrapAnswer(Object.assign(answer, { turnSettled: settled }), {
      say: (text) => answer.say(text.toUpperCase()),
    });
    expect([wrapped.saidAnything, wrapped.hangingUp, wrapped.signal.aborted]).toEqual([false, false, false]);
    wrapped.say('hello');
    wrapped.finalWords('Hello');
    wrapped.hangUp();
    controller.abort();
    expect(said).toEqual(['HELLO']);
    expect(state).toEqual({ final: 'Hello', hangUp: true });
    expect([wrapped.saidAnything, wrapped.hangingUp, wrapped.signal.aborted]).toEqual([true, true, true]);
    expect(wrapped.turnSettled).toBe(settled);
    const confirmed = Promise.resolve(false);
    expect(wrapAnswer(answer, { turnSettled: confirmed }).turnSettled).toBe(confirmed);
  });
});
