import { NotFoundError } from '../domain/errors.ts';
import { randomAlphanumeric } from '../domain/ids.ts';
import { pageInfo, pageOffset, type PageRequest } from '../domain/pagination.ts';
import * as repository from '../repositories/triggers.ts';
import { getAgent } from './agents.ts';

/** An API trigger: its own id that places calls with one agent, so integrations need not know agent ids. */
export async function createTrigger(orgId: number, request: { workflow_id: number; name?: string }) {
  const agent = await getAgent(orgId, String(request.workflow_id));
  const trigger: repository.TriggerRecord = {
    id: `trg_${randomAlphanumeric(16)}`,
    workflow_id: agent.id,
    name: request.name ?? 'API trigger',
    created_at: new Date().toISOString(),
  };
  await repository.putTrigger(orgId, trigger);
  return trigger;
}

export async function getTrigger(orgId: number, triggerId: string) {
  const trigger = await repository.getTrigger(orgId, triggerId);
  if (!trigger) throw new NotFoundError('Trigger not found');
  return trigger;
}

export async function listTriggers(orgId: number, page: PageRequest) {
  const { items, totalCount } = await repository.listTriggers(orgId, pageOffset(page), page.limit);
  return { items, ...pageInfo(page, totalCount) };
}

export async function deleteTrigger(orgId: number, triggerId: string): Promise<void> {
  if (!(await repository.deleteTrigger(orgId, triggerId))) throw new NotFoundError('Trigger not found');
}
