import { beforeAll, describe, expect, it } from 'vitest';
import { apiClient, newOrganization, type TestOrganization, needsLocalStack } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually } from '../support/webhook-receiver.ts';

const api = apiClient();
let org: TestOrganization;
let agent: { id: number; public_id: string };

beforeAll(async () => {
  org = await newOrganization('Realtime calls', 2);
  agent = (
    await api.request('POST', '/agents', {
      key: org.key,
      body: {
        name: 'Realtime reminders',
        workflow_definition: { greeting: 'Hi {{initial_context.name}}.', steps: ['Confirm?'], closing: 'Bye.' },
        workflow_configurations: { engine: 'realtime' },
        call_disposition_codes: { confirmed: 'Visit confirmed' },
      },
    })
  ).body;
});

describe.skipIf(needsLocalStack)('a phone call of the realtime engine (the local Twilio, the Realtime fake)', () => {
  it('greets in the model voice, hears the callee, ends the call, and prices the model on the run', async () => {
    const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
      key: org.key,
      body: { phone_number: daytimeNumber(3), initial_context: { name: 'Anna' } },
    });
    expect(placed.status).toBe(200);
    const runId = placed.body.workflow_run_id as number;
    const run = await eventually(async () => {
      const current = await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key });
      return current.body.status !== 'in_progress' ? current.body : undefined;
    }, 60_000);
    expect(run.status).toBe('completed');
    expect(run.gathered_context.call_disposition).toBe('confirmed');
    const transcript = await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}/transcript`, {
      key: org.key,
    });
    expect(transcript.body.segments[0]).toMatchObject({ role: 'assistant', text: 'Hi Anna.' });
    expect(transcript.body.segments.some((segment: { role: string }) => segment.role === 'user')).toBe(true);
    expect(transcript.body.segments.at(-1)).toMatchObject({ role: 'assistant', text: 'Bye.' });
    expect(run.cost.speech_to_speech_usd).toBeGreaterThan(0);
    expect(run.cost.total_usd).toBeCloseTo(
      run.cost.telephony_usd + run.cost.platform_usd + run.cost.speech_to_speech_usd,
      4,
    );
  });
});
