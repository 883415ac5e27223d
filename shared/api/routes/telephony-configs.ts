import { ErrorResponse } from '../../schemas/common.ts';
import { TelephonyConfigRequest, TelephonyConfigResponse } from '../../schemas/telephony.ts';
import { UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';

const NONE = { 404: { description: "The organization uses the platform's telephony account", schema: ErrorResponse } };

/**
 * The organization's own telephony provider account (one per organization). Without one, calls
 * and numbers go through the platform's account.
 */
export const telephonyConfigRoutes = {
  put: defineRoute({
    group: 'numbers',
    tags: ['Telephony'],
    operationId: 'putTelephonyConfig',
    method: 'PUT',
    path: '/telephony-configs',
    summary: "Use the organization's own Twilio or Telnyx account for its calls",
    description:
      'The credentials are checked with the provider (the account must own `caller_id`, the number its calls show), stored encrypted with KMS and never returned. ' +
      'From then on (within 30 s) every call of the organization (direct, trigger, campaign) is dialed through this account, paced to its `calls_per_second`. ' +
      "Point the account's webhooks at nothing: each call carries its own signed callback URL. Replaces a previous config.",
    request: { body: TelephonyConfigRequest },
    responses: {
      200: { description: 'Stored (secrets left out)', schema: TelephonyConfigResponse },
      ...UNAUTHORIZED,
      ...VALIDATION,
    },
  }),
  get: defineRoute({
    group: 'numbers',
    tags: ['Telephony'],
    operationId: 'getTelephonyConfig',
    method: 'GET',
    path: '/telephony-configs',
    summary: "The organization's own telephony account, if any (secrets never returned)",
    description:
      "The provider, account id, caller id and call rate of the organization's own account; 404 when calls use the platform's account.",
    request: {},
    responses: { 200: { description: 'The config', schema: TelephonyConfigResponse }, ...NONE, ...UNAUTHORIZED },
  }),
  delete: defineRoute({
    group: 'numbers',
    tags: ['Telephony'],
    operationId: 'deleteTelephonyConfig',
    method: 'DELETE',
    path: '/telephony-configs',
    summary: "Forget the organization's own account: calls go through the platform's account again",
    description:
      'Deletes the stored credentials (404 when none were set). Calls in progress finish on the account that placed them.',
    request: {},
    responses: { 204: { description: 'Deleted' }, ...NONE, ...UNAUTHORIZED },
  }),
};
