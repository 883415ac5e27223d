import { ErrorResponse } from '../../schemas/common.ts';
import { AgentIdParam } from '../../schemas/agents.ts';
import {
  Definition,
  DefinitionPage,
  DefinitionParams,
  ListDefinitionsQuery,
  SaveDraftRequest,
} from '../../schemas/definitions.ts';
import { NOT_FOUND, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';

/** Definition versions: served by the agents function, since they are the agent's. */
export const definitionRoutes = {
  listDefinitions: defineRoute({
    operationId: 'listDefinitions',
    method: 'GET',
    path: '/agents/{agent_id}/definitions',
    group: 'agents',
    summary: "List an agent's definition versions",
    description:
      'Every saved `workflow_definition` of the agent is a version: the one it was created with, each change through `PATCH /agents/{agent_id}`, each draft. Newest first, without the definitions themselves (fetch one for it); `status` says which is `current`, which were `published` before, which are `draft`s.',
    tags: ['Agents'],
    request: { params: AgentIdParam, query: ListDefinitionsQuery },
    responses: {
      200: { description: 'Versions', schema: DefinitionPage },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  saveDraft: defineRoute({
    operationId: 'saveDefinitionDraft',
    method: 'POST',
    path: '/agents/{agent_id}/definitions',
    group: 'agents',
    summary: 'Save a draft definition',
    description:
      "Saves a new version as a draft, validated as the agent's `workflow_definition` is (422s point into the graph). Nothing runs it until it is published or a run names it: chat and browser sessions (`POST /agents/{agent_id}/conversations`) and calls (`POST /agents/{agent_id}/calls`) take `definition_id` to try it. Answers 201 with the version.",
    tags: ['Agents'],
    request: { params: AgentIdParam, body: SaveDraftRequest },
    responses: {
      201: { description: 'Saved', schema: Definition },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  getDefinition: defineRoute({
    operationId: 'getDefinition',
    method: 'GET',
    path: '/agents/{agent_id}/definitions/{definition_id}',
    group: 'agents',
    summary: 'Get a definition version',
    description: 'One version with its `workflow_definition`; 404 when the agent has no version of that id.',
    tags: ['Agents'],
    request: { params: DefinitionParams },
    responses: {
      200: { description: 'Version', schema: Definition },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  publishDefinition: defineRoute({
    operationId: 'publishDefinition',
    method: 'POST',
    path: '/agents/{agent_id}/definitions/{definition_id}/publish',
    group: 'agents',
    summary: 'Publish a definition version',
    description:
      "Makes the version the agent's current one (`current_definition_id`, and its `workflow_definition`): calls, campaign calls and conversations started from now on run it. Runs already started keep the version they started with (their `definition_id`). Publishing an earlier version rolls back to it; publishing the current one changes nothing. 409 when the agent is archived, or was changed by another request meanwhile (fetch and retry).",
    tags: ['Agents'],
    request: { params: DefinitionParams },
    responses: {
      200: { description: 'The version, now current', schema: Definition },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      409: { description: 'The agent is archived, or changed meanwhile', schema: ErrorResponse },
      ...VALIDATION,
    },
  }),
};
