import { PaginationQuery } from '../../schemas/pagination.ts';
import { CreateTriggerRequest, Trigger, TriggerIdParam, TriggerPage } from '../../schemas/triggers.ts';
import { NOT_FOUND, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';

export const triggerRoutes = {
  createTrigger: defineRoute({
    operationId: 'createTrigger',
    method: 'POST',
    path: '/triggers',
    group: 'triggers',
    summary: 'Create an API trigger for an agent',
    description:
      'An API trigger (`trg_…`) lets another system place calls with an agent through `POST /triggers/{trigger_id}/calls`, with the same checks as agent calls.',
    tags: ['Triggers'],
    request: { body: CreateTriggerRequest },
    responses: { 201: { description: 'Created', schema: Trigger }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  listTriggers: defineRoute({
    operationId: 'listTriggers',
    method: 'GET',
    path: '/triggers',
    group: 'triggers',
    summary: 'List API triggers',
    description: "The organization's API triggers, paginated.",
    tags: ['Triggers'],
    request: { query: PaginationQuery },
    responses: { 200: { description: 'One page', schema: TriggerPage }, ...UNAUTHORIZED, ...VALIDATION },
  }),
  getTrigger: defineRoute({
    operationId: 'getTrigger',
    method: 'GET',
    path: '/triggers/{trigger_id}',
    group: 'triggers',
    summary: 'Get an API trigger',
    description: 'One API trigger: its agent (`workflow_id`) and name.',
    tags: ['Triggers'],
    request: { params: TriggerIdParam },
    responses: { 200: { description: 'Trigger', schema: Trigger }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  deleteTrigger: defineRoute({
    operationId: 'deleteTrigger',
    method: 'DELETE',
    path: '/triggers/{trigger_id}',
    group: 'triggers',
    summary: 'Delete an API trigger',
    description: 'Deletes the trigger; calls through it are refused (404) from then on.',
    tags: ['Triggers'],
    request: { params: TriggerIdParam },
    responses: { 204: { description: 'Deleted' }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
};
