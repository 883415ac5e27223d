import { beforeAll, describe, expect, it } from 'vitest';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually } from '../support/webhook-receiver.ts';

const api = apiClient();
let org: TestOrganization;

beforeAll(async () => {
  org = await newOrganization('Early connections', 2);
});

async function endedCall(workflowDefinition: object, phoneNumber: string) {
  const agent = await api.request('POST', '/agents', {
    key: org.key,
    body: {
      name: 'Early',
      workflow_definition: workflowDefinition,
      call_disposition_codes: { done: 'Done' },
      workflow_configurations: { language: 'en', silence_timeout_seconds: 6 },
    },
  });
  expect(agent.status).toBe(201);
  const placed = await api.request('POST', `/agents/${agent.body.public_id}/calls`, {
    key: org.key,
    body: { phone_number: phoneNumber, initial_context: { name: 'Anna' } },
  });
  expect(placed.status).toBe(200);
  const path = `/agents/${agent.body.public_id}/conversations/${placed.body.workflow_run_id}`;
  const run = await eventually(async () => {
    const current = await api.request('GET', path, { key: org.key });
    return current.body.status !== 'in_progress' ? current.body : undefined;
  }, 40_000);
  const transcript = await api.request('GET', `${path}/transcript`, { key: org.key });
  return {
    run,
    messages: run.logs.map((log: { message: string }) => log.message) as string[],
    lines: transcript.body.segments.map(({ role, text }: { role: string; text: string }) => `${role}: ${text}`),
  };
}

describe.skipIf(needsLocalStack)('a dialed call made ready while it rings (the local Twilio)', () => {
  it(
    'starts with the speech-to-text stream, the greeting (its initial context filled in) and the model connection opened before the answer',
    { timeout: 60_000 },
    async () => {
      const { run, messages, lines } = await endedCall(
        { greeting: 'Hi {{initial_context.name}}, Smile clinic here.', steps: ['Anything else?'] },
        daytimeNumber(2, 3),
      );
      expect(run.status).toBe('completed');
      // The dialer asked while the phone rang; the answered call took what was opened then.
      const dialed = messages.indexOf('Dialing through twilio');
      const prepared = messages.indexOf(
        "Prepared while the call rang: the speech-to-text stream, the greeting's speech, the model's connection",
      );
      expect(dialed).toBeGreaterThanOrEqual(0);
      expect(prepared).toBeGreaterThan(dialed);
      // The greeting prepared is the one the caller heard first, and the caller was heard through the early stream.
      expect(lines.slice(0, 2)).toEqual(['assistant: Hi Anna, Smile clinic here.', 'user: Hello, who is this?']);
    },
  );

  it(
    'an agent whose first words come from the model has its stream and the model connection opened',
    { timeout: 60_000 },
    async () => {
      const { messages, lines } = await endedCall({ steps: ['Anything else?'] }, daytimeNumber(2, 4));
      expect(messages).toContain("Prepared while the call rang: the speech-to-text stream, the model's connection");
      expect(lines[0]).toBe('assistant: Hello, this is Early. How can I help you?');
    },
  );
});
