import { AgentIdParam } from '../../schemas/agents.ts';
import { ErrorResponse } from '../../schemas/common.ts';
import {
  AssignNumberRequest,
  MarketplaceNumbers,
  MarketplaceQuery,
  NumberSetup,
  OutboundAgents,
  OutboundAssignment,
  OutboundNumberRequest,
  NumberDocument,
  NumberDocumentIdParam,
  NumberDocumentUpload,
  PhoneNumber,
  PhoneNumberIdParam,
  PhoneNumberPage,
  PurchaseNumberRequest,
} from '../../schemas/numbers.ts';
import { PaginationQuery } from '../../schemas/pagination.ts';
import { BAD_REQUEST, NOT_FOUND, TELEPHONY_UNAVAILABLE, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';

export const numberRoutes = {
  uploadDocument: defineRoute({
    group: 'numbers',
    tags: ['Phone numbers'],
    operationId: 'uploadNumberDocument',
    method: 'POST',
    path: '/phone-numbers/documents',
    summary: "Upload the scan of a subscriber's identity document for a regulated number",
    description:
      'Multipart `file`: PDF, JPEG or PNG (another declared type: 415; content that is not what it is declared: 422 on `["body","file"]`), at most 4 MiB (413). ' +
      "Stored encrypted (a data key per file, wrapped with the platform's KMS key) and never served back (the answer is its only record: id, name, type, size); give its `id` as `end_user.document_id` when buying a Polish mobile number. " +
      "It is erased when that number's review is rejected, or with `DELETE /phone-numbers/documents/{number_document_id}`.",
    request: { multipart: NumberDocumentUpload },
    responses: {
      201: { description: 'Document stored', schema: NumberDocument },
      413: { description: 'File too large', schema: ErrorResponse },
      415: { description: 'Unsupported file type', schema: ErrorResponse },
      ...UNAUTHORIZED,
      ...VALIDATION,
    },
  }),
  deleteDocument: defineRoute({
    group: 'numbers',
    tags: ['Phone numbers'],
    operationId: 'deleteNumberDocument',
    method: 'DELETE',
    path: '/phone-numbers/documents/{number_document_id}',
    summary: 'Erase an uploaded document',
    description:
      "Erases the file and its record irreversibly. A copy already sent to the provider's review stays with the provider, under its own retention.",
    request: { params: NumberDocumentIdParam },
    responses: { 204: { description: 'Erased' }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  marketplace: defineRoute({
    group: 'numbers',
    tags: ['Phone numbers'],
    operationId: 'searchNumberMarketplace',
    method: 'GET',
    path: '/phone-numbers/marketplace',
    summary: 'Numbers for sale, by country and type',
    description:
      'Numbers the provider offers in a country (`country_code`, ISO 3166 alpha-2), optionally of one `number_type`, with monthly prices in USD and PLN and whether a regulatory review applies; paginated.',
    request: { query: MarketplaceQuery.extend(PaginationQuery.shape) },
    responses: {
      200: { description: 'One page of available numbers', schema: MarketplaceNumbers },
      ...UNAUTHORIZED,
      ...VALIDATION,
      ...TELEPHONY_UNAVAILABLE,
    },
  }),
  purchase: defineRoute({
    group: 'numbers',
    tags: ['Phone numbers'],
    operationId: 'purchaseNumber',
    method: 'POST',
    path: '/phone-numbers/marketplace/purchase',
    summary: 'Buy a number; the first month is charged to the balance',
    description:
      'The charge and the number are written in one transaction (never one without the other); a balance below the price is a 400. ' +
      'Polish mobile numbers need `consent: true`, `end_user_id` and `end_user` with the scan uploaded first (`end_user.document_id`, from `POST /phone-numbers/documents`; ' +
      'another organization\'s or an erased one: 422 on `["body","end_user","document_id"]`, nothing charged), and start `pending` (owned and assignable, no traffic, not renewed, `order_status: in_review`). ' +
      "The data and the scan go to the provider's regulatory review (Twilio: an EndUser and a SupportingDocument with the regulation's attribute names in a Bundle submitted for review; " +
      'Telnyx: a requirement group with the number order); its verdict reaches the platform by signed callback and moves the number to `active` (bought, renewing monthly) or `rejected` ' +
      '(refunded, `order_status_reason` says why, the scan erased), with a `number.approved` / `number.rejected` webhook event carrying the `end_user_id`, ' +
      "which the provider's review names too (Twilio's bundle and EndUser names, Telnyx's `customer_reference`).",
    request: { body: PurchaseNumberRequest },
    responses: {
      200: { description: 'Phone number', schema: PhoneNumber },
      409: { description: 'Not available', schema: ErrorResponse },
      ...BAD_REQUEST,
      ...UNAUTHORIZED,
      ...VALIDATION,
      ...TELEPHONY_UNAVAILABLE,
    },
  }),
  list: defineRoute({
    group: 'numbers',
    tags: ['Phone numbers'],
    operationId: 'listPhoneNumbers',
    method: 'GET',
    path: '/phone-numbers',
    summary: "The organization's numbers",
    description: "The organization's numbers, paginated, with status, assigned agent and outbound agents.",
    request: { query: PaginationQuery },
    responses: { 200: { description: 'One page', schema: PhoneNumberPage }, ...UNAUTHORIZED, ...VALIDATION },
  }),
  setup: defineRoute({
    group: 'numbers',
    tags: ['Phone numbers'],
    operationId: 'getPhoneNumberSetup',
    method: 'GET',
    path: '/phone-numbers/setup',
    summary: 'Whether to show the phone-number step, and what a mobile number costs against the balance',
    description:
      '`show_phone_number_step` (paid plan and no number yet), plan, number and agent counts, balance, the price of a mobile number and whether the balance covers it.',
    request: {},
    responses: { 200: { description: 'Setup', schema: NumberSetup }, ...UNAUTHORIZED },
  }),
  assign: defineRoute({
    group: 'numbers',
    tags: ['Phone numbers'],
    operationId: 'assignPhoneNumber',
    method: 'POST',
    path: '/phone-numbers/assign',
    summary: "Route a number's incoming calls to an agent",
    description: "The agent (`workflow_id`) that answers the number's incoming calls. Answers the Phone number.",
    request: { body: AssignNumberRequest },
    responses: {
      200: { description: 'Phone number', schema: PhoneNumber },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  get: defineRoute({
    group: 'numbers',
    tags: ['Phone numbers'],
    operationId: 'getPhoneNumber',
    method: 'GET',
    path: '/phone-numbers/{phone_number_id}',
    summary: 'Get a number',
    description: 'One number of the organization.',
    request: { params: PhoneNumberIdParam },
    responses: {
      200: { description: 'Phone number', schema: PhoneNumber },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  outboundAgents: defineRoute({
    group: 'numbers',
    tags: ['Phone numbers'],
    operationId: 'listOutboundAgents',
    method: 'GET',
    path: '/outbound-agents',
    summary: 'Which agent dials out from which number',
    description:
      'Which number each agent dials out from (set with `POST /agents/{agent_id}/outbound-number`), paginated; `phone_number_id: null` means the default caller id.',
    request: { query: PaginationQuery },
    responses: {
      200: { description: 'One page of assignments', schema: OutboundAgents },
      ...UNAUTHORIZED,
      ...VALIDATION,
    },
  }),
  outboundNumber: defineRoute({
    group: 'numbers',
    tags: ['Phone numbers'],
    operationId: 'setAgentOutboundNumber',
    method: 'POST',
    path: '/agents/{agent_id}/outbound-number',
    summary: 'Set the number an agent dials from (null: the default)',
    description: 'Calls of a pending or suspended number are refused (409).',
    request: { params: AgentIdParam, body: OutboundNumberRequest },
    responses: {
      200: { description: 'Assignment', schema: OutboundAssignment },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
};
