/**
 * A 10,000-contact campaign on the local stack with instant simulated calls (busy numbers: the
 * simulated provider answers "busy" after its ring delay), no retries, 100 channels.
 */
import { dynamoDocumentClient } from '../shared/aws/clients.ts';
import { invocationCounts } from '../local/lambda-runtime.ts';
import { daytimeNumber } from '../test/support/phone-numbers.ts';

export interface CampaignFigures {
  contacts: number;
  channels: number;
  createSeconds: number;
  runSeconds: number;
  engineSteps: number;
  transitionsPerContact: number;
  dynamoRequestsPerContact: number;
}

/** Each engine step is 4 state transitions (Step, Route, Sleep, NextStep). */
const TRANSITIONS_PER_STEP = 4;

export async function runCampaign(baseUrl: string, contacts: number, channels: number): Promise<CampaignFigures> {
  let dynamoRequests = 0;
  dynamoDocumentClient().middlewareStack.add(
    (next) => async (args) => {
      dynamoRequests += 1;
      return next(args);
    },
    { step: 'initialize', name: 'benchRequestCounter' },
  );
  const { createOrganization } = await import('../shared/services/organizations.ts');
  const { apiKey } = await createOrganization({ name: 'Campaign bench', maxConcurrentCalls: channels });
  const headers = { 'X-API-Key': apiKey.key, 'Content-Type': 'application/json' };
  const agent = (await (await fetch(`${baseUrl}/agents`, { method: 'POST', headers, body: JSON.stringify({ name: 'Bench' }) })).json()) as { id: number };
  const body = {
    name: 'Ten thousand',
    workflow_id: agent.id,
    source_type: 'manual',
    calling_window: { timezone: 'UTC', days: [1, 2, 3, 4, 5, 6, 7], start: '00:00', end: '23:59' },
    retry_config: { enabled: false },
    manual_contacts: Array.from({ length: contacts }, () => ({ phone_number: daytimeNumber(7) })),
  };
  const createStarted = performance.now();
  const created = (await (await fetch(`${baseUrl}/campaigns`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as { id: number };
  const createSeconds = (performance.now() - createStarted) / 1000;

  const requestsBefore = dynamoRequests;
  const stepsBefore = invocationCounts.get('campaignEngine') ?? 0;
  const runStarted = performance.now();
  await fetch(`${baseUrl}/campaigns/${created.id}/start`, { method: 'POST', headers });
  for (;;) {
    const campaign = (await (await fetch(`${baseUrl}/campaigns/${created.id}`, { headers })).json()) as { state: string };
    if (campaign.state === 'completed') break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const runSeconds = (performance.now() - runStarted) / 1000;
  const engineSteps = (invocationCounts.get('campaignEngine') ?? 0) - stepsBefore;
  return {
    contacts,
    channels,
    createSeconds,
    runSeconds,
    engineSteps,
    transitionsPerContact: (engineSteps * TRANSITIONS_PER_STEP) / contacts,
    dynamoRequestsPerContact: (dynamoRequests - requestsBefore) / contacts,
  };
}
