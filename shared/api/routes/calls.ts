import { AgentIdParam } from '../../schemas/agents.ts';
import { CallInitiationResponse, IdempotencyKeyHeader, LegacyWorkflowIdParam, PlaceCallRequest } from '../../schemas/runs.ts';
import { TelephonyStatusCallback } from '../../schemas/telephony.ts';
import { TriggerIdParam } from '../../schemas/triggers.ts';
import { CALL_PLACEMENT_ERRORS, NOT_FOUND, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';

const PLACE_CALL_DESCRIPTION =
  'Checks, in this order: the number is valid E.164 (422); it is not on the Do not call list (403, `detail` starts with `do_not_call`); ' +
  'it is 08:00-21:00 in every time zone the number may be in (409, `detail.retry_at` and `Retry-After`); an outbound channel is free ' +
  '(429 with `Retry-After`). The run exists at once, in progress, with `duration_seconds: null`. Send `Idempotency-Key` to retry safely.';

export const callRoutes = {
  placeCall: defineRoute({
    operationId: 'placeCall',
    method: 'POST',
    path: '/agents/{agent_id}/calls',
    group: 'calls',
    summary: 'Place an outbound call',
    description: PLACE_CALL_DESCRIPTION,
    tags: ['Calls'],
    request: { params: AgentIdParam, headers: IdempotencyKeyHeader, body: PlaceCallRequest },
    responses: { 200: { description: 'Call initiated', schema: CallInitiationResponse }, ...UNAUTHORIZED, ...CALL_PLACEMENT_ERRORS, ...NOT_FOUND, ...VALIDATION },
  }),
  placeCallLegacy: defineRoute({
    operationId: 'placeCallLegacy',
    method: 'POST',
    path: '/workflow/{workflow_id}/calls',
    group: 'calls',
    summary: 'Place an outbound call (earlier address)',
    description: `Same as \`POST /agents/{agent_id}/calls\` with the agent's integer id; kept for existing integrations. ${PLACE_CALL_DESCRIPTION}`,
    tags: ['Calls'],
    request: { params: LegacyWorkflowIdParam, headers: IdempotencyKeyHeader, body: PlaceCallRequest },
    responses: { 200: { description: 'Call initiated', schema: CallInitiationResponse }, ...UNAUTHORIZED, ...CALL_PLACEMENT_ERRORS, ...NOT_FOUND, ...VALIDATION },
  }),
  placeTriggerCall: defineRoute({
    operationId: 'placeTriggerCall',
    method: 'POST',
    path: '/triggers/{trigger_id}/calls',
    group: 'calls',
    summary: 'Place an outbound call through an API trigger',
    description: `Calls with the trigger's agent. Body and response as \`POST /agents/{agent_id}/calls\`. ${PLACE_CALL_DESCRIPTION}`,
    tags: ['Calls'],
    request: { params: TriggerIdParam, headers: IdempotencyKeyHeader, body: PlaceCallRequest },
    responses: { 200: { description: 'Call initiated', schema: CallInitiationResponse }, ...UNAUTHORIZED, ...CALL_PLACEMENT_ERRORS, ...NOT_FOUND, ...VALIDATION },
  }),
  telephonyStatus: defineRoute({
    operationId: 'telephonyStatusCallback',
    method: 'POST',
    path: '/telephony/status',
    group: 'telephonyCallbacks',
    public: true,
    internal: true,
    summary: 'Call status callback of the telephony provider (signed with X-Telephony-Signature)',
    description: 'Machine-to-machine: the telephony provider reports call status changes here; requests without a valid signature are refused.',
    tags: ['Telephony'],
    request: { body: TelephonyStatusCallback },
    responses: { 204: { description: 'Accepted' }, 403: { description: 'Bad signature' } },
  }),
};
