import { AddDoNotCallRequest, DoNotCallEntry, DoNotCallNumberParam, DoNotCallPage } from '../../schemas/do-not-call.ts';
import { PaginationQuery } from '../../schemas/pagination.ts';
import { NOT_FOUND, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';

export const doNotCallRoutes = {
  addDoNotCall: defineRoute({
    operationId: 'addDoNotCallNumber',
    method: 'POST',
    path: '/do-not-call',
    group: 'doNotCall',
    summary: 'Add a number to the do-not-call list',
    description:
      'The number is normalised to E.164 first. Calls to listed numbers are refused with 403 and campaigns skip them. ' +
      'Adding a listed number again is not an error: it answers 200 with the existing entry.',
    tags: ['Do not call'],
    request: { body: AddDoNotCallRequest },
    responses: {
      201: { description: 'Added', schema: DoNotCallEntry },
      200: { description: 'Already on the list', schema: DoNotCallEntry },
      ...UNAUTHORIZED,
      ...VALIDATION,
    },
  }),
  listDoNotCall: defineRoute({
    operationId: 'listDoNotCallNumbers',
    method: 'GET',
    path: '/do-not-call',
    group: 'doNotCall',
    summary: 'List the do-not-call numbers',
    description: 'In E.164 order.',
    tags: ['Do not call'],
    request: { query: PaginationQuery },
    responses: { 200: { description: 'One page', schema: DoNotCallPage }, ...UNAUTHORIZED, ...VALIDATION },
  }),
  removeDoNotCall: defineRoute({
    operationId: 'removeDoNotCallNumber',
    method: 'DELETE',
    path: '/do-not-call/{phone_number}',
    group: 'doNotCall',
    summary: 'Remove a number from the do-not-call list',
    description:
      'The number in the path may be written in any form `POST` accepts (URL-encode the `+` as `%2B` if your client turns `+` into a space).',
    tags: ['Do not call'],
    request: { params: DoNotCallNumberParam },
    responses: { 204: { description: 'Removed' }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
};
