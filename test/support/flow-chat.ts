import { expect, vi } from 'vitest';
import { apiClient } from './api.ts';
import { connectSession } from './sessions.ts';

// Generous: a run is marked completed after the hang-up by work that queues on a loaded machine
// (15 s fell short once at load 25).
const until = <T>(check: () => T | Promise<T>) => vi.waitFor(check, { timeout: 30_000, interval: 100 });

/**
 * A chat with an agent until it hangs up: the caller's messages, each sent once the agent has
 * answered the last (each answer ends with a mark); the session's frames and the completed run.
 */
export async function chatUntilEnd(key: string, agentId: string, messages: string[], body: object = {}) {
  const api = apiClient();
  const created = await api.request<{ id: number; session: { url: string; run_ref: string; token: string } }>(
    'POST',
    `/agents/${agentId}/conversations`,
    { key, body: { mode: 'chat', name: 'flow test', ...body } },
  );
  expect(created.status, created.text).toBe(200);
  const session = await connectSession(created.body.session);
  await until(() => expect(session.of('mark').length).toBeGreaterThan(0));
  for (const text of messages) {
    const marks = session.of('mark').length;
    session.send({ event: 'message', text });
    await until(() => expect(session.of('mark').length).toBeGreaterThan(marks));
  }
  expect(await session.closed).toEqual({ code: 1000, reason: 'agent hung up' });
  const run = await until(async () => {
    const response = await api.request('GET', `/agents/${agentId}/conversations/${created.body.id}`, { key });
    expect(response.body.status).toBe('completed');
    return response.body;
  });
  return { session, run };
}

/**
 * An agent made from the flow template `account-service` for North Bank (an identity check against
 * `initial_context.date_of_birth`, then the account or the end): the created agent.
 */
export async function accountServiceAgent(key: string) {
  const created = await apiClient().request('POST', '/agents/from-template', {
    key,
    body: {
      template_id: 'account-service',
      variables: { company_name: 'North Bank' },
      language: 'en',
      agent_name: 'Account service',
    },
  });
  expect(created.status, created.text).toBe(200);
  return created.body as {
    id: number;
    public_id: string;
    workflow_definition: { nodes: { id: string; greeting?: string }[] };
  };
}

/** A run's path through its flow: each step's node, the node it left for, and why. */
export const flowPath = (run: {
  flow: { node_id: string; edge: { target: string } | null; reason: string | null }[];
}) => run.flow.map((step) => [step.node_id, step.edge?.target ?? null, step.reason]);

/**
 * The flows tests' bank (docs/flows.md's example): the caller's age, then a disclosure nobody can
 * interrupt (unless `interruptible`), then a card or a loan; minors to their own end. `disclosure`:
 * what the offer step says (a phone test needs words that play long enough for a caller's first
 * word to be recognised while they play).
 */
export const northBankFlow = (
  loanClosing = 'A loan officer will call you. Goodbye.',
  { interruptible = false, disclosure = 'This call is recorded. A card or a loan?' } = {},
) => ({
  nodes: [
    {
      id: 'start',
      type: 'startCall',
      name: 'Greeting',
      greeting: 'Hello, this is North Bank. How old are you?',
      prompt: 'Find out the caller\'s age. Say "How old are you?"',
      extract: [{ name: 'age', type: 'number', hint: "The caller's age in years" }],
    },
    {
      id: 'offer',
      type: 'agentNode',
      name: 'Offer',
      prompt: `Read the disclosure, then offer a card or a loan. Say "${disclosure}"`,
      interruptible,
    },
    { id: 'card', type: 'endCall', name: 'Card', closing: 'Your card is on its way. Goodbye.', disposition: 'card' },
    {
      id: 'loan',
      type: 'endCall',
      name: 'Loan',
      closing: loanClosing,
      disposition: 'loan',
    },
    { id: 'minor', type: 'endCall', name: 'Minor', closing: 'Sorry, our offers are for adults. Goodbye.' },
    { id: 'global', type: 'globalNode', name: 'Everywhere', prompt: 'Be brief and polite.' },
  ],
  edges: [
    { source: 'start', target: 'offer', expression: 'age >= 18' },
    { source: 'start', target: 'minor', expression: 'age < 18', label: 'Too young' },
    { source: 'offer', target: 'card', condition: 'The caller wants the "card"' },
    { source: 'offer', target: 'loan', condition: 'The caller wants the "loan"' },
  ],
});
