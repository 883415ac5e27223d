import { AgentIdParam } from '../../schemas/agents.ts';
import * as z from 'zod';
import { ErrorResponse } from '../../schemas/common.ts';
import {
  CallInitiationResponse,
  ConversationIdParams,
  IdempotencyKeyHeader,
  LegacyWorkflowIdParam,
  PlaceCallRequest,
} from '../../schemas/runs.ts';
import { TelephonyProviderParam } from '../../schemas/telephony.ts';
import { TriggerIdParam } from '../../schemas/triggers.ts';
import {
  CALL_PLACEMENT_ERRORS,
  NOT_FOUND,
  TELEPHONY_UNAVAILABLE,
  UNAUTHORIZED,
  VALIDATION,
} from '../common-responses.ts';
import { defineRoute } from '../route.ts';
import { documentedInt } from '../../schemas/bounds.ts';

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
    responses: {
      200: { description: 'Call initiated', schema: CallInitiationResponse },
      ...UNAUTHORIZED,
      ...CALL_PLACEMENT_ERRORS,
      ...TELEPHONY_UNAVAILABLE,
      ...NOT_FOUND,
      ...VALIDATION,
    },
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
    responses: {
      200: { description: 'Call initiated', schema: CallInitiationResponse },
      ...UNAUTHORIZED,
      ...CALL_PLACEMENT_ERRORS,
      ...TELEPHONY_UNAVAILABLE,
      ...NOT_FOUND,
      ...VALIDATION,
    },
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
    responses: {
      200: { description: 'Call initiated', schema: CallInitiationResponse },
      ...UNAUTHORIZED,
      ...CALL_PLACEMENT_ERRORS,
      ...TELEPHONY_UNAVAILABLE,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  endCall: defineRoute({
    operationId: 'endCall',
    method: 'POST',
    path: '/agents/{agent_id}/conversations/{conversation_id}/end',
    group: 'calls',
    summary: 'Hang up a call in progress',
    description:
      'Asks the telephony provider to hang up (a call still ringing is cancelled). Answers 202 at once; the run then ends as usual ' +
      '(`completed` with what was recorded, or `failed` if it was never answered) and `call.completed` fires. 409 when the run is not a call in progress.',
    tags: ['Calls'],
    request: { params: ConversationIdParams },
    responses: {
      202: {
        description: 'Hang-up requested',
        schema: z
          .object({ workflow_run_id: documentedInt(z.int()), status: z.literal('ending') })
          .openapi('EndCallResponse'),
      },
      409: { description: 'Not a call in progress', schema: ErrorResponse },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  telephonyStatus: defineRoute({
    operationId: 'telephonyStatusCallback',
    method: 'POST',
    path: '/telephony/{provider}/status',
    group: 'telephonyCallbacks',
    public: true,
    internal: true,
    summary:
      "Call status callbacks of the telephony provider, and a regulated number's review, verified with the provider's signature (Twilio X-Twilio-Signature, Telnyx Ed25519)",
    description:
      "Machine-to-machine: the telephony provider reports call status changes here (`?run=…`), and the news of a regulated number's review: Twilio's Bundle StatusCallback (`?number=<organization>.<number>`), Telnyx's `number_order.complete` (the account's number-order webhook). On a review's news the provider is asked for its status, and a decided review makes the number active or rejected. Requests without a valid signature are refused with 403.",
    tags: ['Telephony'],
    request: { params: TelephonyProviderParam },
    responses: { 204: { description: 'Accepted' }, 403: { description: 'Bad signature' } },
  }),
  telephonyTransfer: defineRoute({
    operationId: 'telephonyTransferCallback',
    method: 'POST',
    path: '/telephony/{provider}/transfer',
    group: 'telephonyCallbacks',
    public: true,
    internal: true,
    summary:
      "A transfer's steps at the provider, signed (Twilio: the whisper for the person answering, the dial's outcome)",
    description:
      "Machine-to-machine: while a call is transferred to a person, Twilio asks here what the person answering hears first (`step=whisper`: a warm transfer's message; a machine is hung up on) and reports the dial's outcome (`step=outcome`: the caller is told when nobody took the call). Telnyx reports a transfer's new leg through the status webhook instead. Requests without a valid signature are refused with 403.",
    tags: ['Telephony'],
    request: { params: TelephonyProviderParam },
    responses: {
      200: { description: 'TwiML', contentType: 'text/xml' },
      403: { description: 'Bad signature' },
      404: { description: 'Not a provider with transfer callbacks' },
    },
  }),
  telephonyMessages: defineRoute({
    operationId: 'telephonyMessagingWebhook',
    method: 'POST',
    path: '/telephony/{provider}/messages',
    group: 'telephonyCallbacks',
    public: true,
    internal: true,
    summary:
      "Text messages at the provider, signed: a sent text's status callbacks (`?run=…&sms=…`) and texts to the platform's numbers",
    description:
      "Machine-to-machine: Twilio's message `StatusCallback` and Telnyx's `message.sent` / `message.finalized` events move a text of a run on (queued, sent, delivered, undelivered with the provider's error code); incoming texts (Twilio's `SmsUrl`, Telnyx's `message.received`) are acknowledged. Requests without a valid signature are refused with 403.",
    tags: ['Telephony'],
    request: { params: TelephonyProviderParam },
    responses: { 204: { description: 'Accepted' }, 403: { description: 'Bad signature' } },
  }),
  telephonyVoice: defineRoute({
    operationId: 'telephonyVoiceWebhook',
    method: 'POST',
    path: '/telephony/{provider}/voice',
    group: 'telephonyCallbacks',
    public: true,
    internal: true,
    summary:
      "Incoming calls: the provider's voice webhook (signed); connects the agent or turns the caller away (Twilio: TwiML; Telnyx: Call Control commands)",
    description:
      "Machine-to-machine: an active number assigned to an agent starts an `inbound` run and connects the caller's audio to the media service; a pending or unknown number, or an organization with no free channel, is turned away politely. Twilio gets the answer as TwiML; for Telnyx (the Call Control application's webhook URL) the platform sends `answer` or `reject` commands and acknowledges the event with `{}`.",
    tags: ['Telephony'],
    request: { params: TelephonyProviderParam },
    responses: {
      200: { description: 'TwiML (Twilio), or `{}` (Telnyx: answered by command)', contentType: 'text/xml' },
      403: { description: 'Bad signature' },
    },
  }),
};
