import { expect } from 'vitest';
import type { apiClient, TestOrganization } from './api.ts';
import { eventually } from './webhook-receiver.ts';

/**
 * The run an incoming call from `caller` to `called` started for `agent`, checked as every
 * provider's must be: mode `inbound`, in progress, the caller's number as the run's and in
 * `initial_context`.
 */
export async function inboundRun(
  api: ReturnType<typeof apiClient>,
  org: TestOrganization,
  agent: { public_id: string },
  caller: string,
  called: string,
): Promise<{ id: number }> {
  const runs = await eventually(async () => {
    const list = await api.request('GET', `/agents/${agent.public_id}/conversations`, { key: org.key });
    return list.body.items?.length ? list.body.items : undefined;
  });
  expect(runs[0]).toMatchObject({
    mode: 'inbound',
    status: 'in_progress',
    phone_number: caller,
    initial_context: { caller_number: caller, called_number: called },
  });
  return runs[0];
}
