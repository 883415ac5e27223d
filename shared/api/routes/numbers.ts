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
  PhoneNumber,
  PhoneNumberIdParam,
  PhoneNumberPage,
  PurchaseNumberRequest,
} from '../../schemas/numbers.ts';
import { PaginationQuery } from '../../schemas/pagination.ts';
import { BAD_REQUEST, NOT_FOUND, TELEPHONY_UNAVAILABLE, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';

export const numberRoutes = {
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
      'Polish mobile numbers need `consent: true`, `end_user_id` and `end_user`, and start `pending` (owned and assignable, no traffic, not renewed) until the regulatory review.',
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
