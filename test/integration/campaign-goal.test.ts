import { describe, expect, it } from 'vitest';
import { apiClient, needsLocalStack, newOrganization } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually } from '../support/webhook-receiver.ts';

/**
 * A campaign's `goal` acts (issue 36): its calls give it to the agent (the call variable
 * `campaign_goal`, here said by the agent's first step) and their post-call analysis judges
 * success against it. A campaign call through the local Twilio, prepared while it rings.
 */
const api = apiClient();
const GOAL = 'confirm the dental visit';

describe.skipIf(needsLocalStack)('a campaign goal', () => {
  it('reaches the agent and the analysis of a campaign call', { timeout: 120_000 }, async () => {
    const org = await newOrganization('Campaign goal', 2);
    const agent = (
      await api.request('POST', '/agents', {
        key: org.key,
        body: {
          name: 'Goal keeper',
          workflow_definition: {
            greeting: 'Hi, Smile clinic here.',
            steps: ['Today we would like to {{initial_context.campaign_goal}}.', 'Is that all right?'],
            closing: 'Bye.',
          },
          workflow_configurations: { silence_timeout_seconds: 6, analysis: { summary_prompt: 'One sentence.' } },
        },
      })
    ).body as { id: number; public_id: string };
    const created = await api.request('POST', '/campaigns', {
      key: org.key,
      body: {
        name: 'Visits',
        goal: GOAL,
        workflow_id: agent.id,
        source_type: 'manual',
        calling_window: { timezone: 'UTC', days: [1, 2, 3, 4, 5, 6, 7], start: '00:00', end: '23:59' },
        retry_config: { max_retries: 0 },
        // Answers and speaks two lines (local/carrier's callee directory).
        manual_contacts: [{ phone_number: daytimeNumber(2, 6), first_name: 'Ann', last_name: 'Answer' }],
      },
    });
    expect(created.status).toBe(200);
    expect(created.body.goal).toBe(GOAL);
    expect((await api.request('POST', `/campaigns/${created.body.id}/start`, { key: org.key })).status).toBe(200);
    const row = await eventually(
      async () => {
        const [contact] = (await api.request('GET', `/campaigns/${created.body.id}/report`, { key: org.key })).body
          .items;
        return contact?.status === 'completed' && contact.analysis_summary ? contact : undefined;
      },
      90_000,
      500,
    );
    const runPath = `/agents/${agent.public_id}/conversations/${row.run_id}`;
    const transcript = (await api.request('GET', `${runPath}/transcript`, { key: org.key })).text;
    expect(transcript).toContain(`Today we would like to ${GOAL}.`);
    const run = (await api.request('GET', runPath, { key: org.key })).body;
    // Judged against the goal: the fake model finds a word of it in what was said.
    expect(run.analysis.success_evaluation).toEqual({
      successful: true,
      reason: 'The conversation mentions "confirm".',
    });
    // The goal is the call's, not something the caller gave: the run's initial context stays the contact's.
    expect(run.initial_context).not.toHaveProperty('campaign_goal');
  });
});
