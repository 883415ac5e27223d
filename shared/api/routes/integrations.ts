import {
  Connection,
  ConnectionIdParam,
  ConnectionList,
  Consent,
  CreateConnectionRequest,
  PickerToken,
  StartConsentRequest,
} from '../../schemas/integrations.ts';
import { BAD_REQUEST, NOT_FOUND, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';
import { PaginationQuery } from '../../schemas/pagination.ts';

export const integrationRoutes = {
  startConsent: defineRoute({
    operationId: 'startConsent',
    method: 'POST',
    path: '/integrations/consents',
    group: 'integrations',
    summary: "Start a hosted-spreadsheet connection: the provider's consent URL",
    description:
      "Returns the provider's consent URL for the platform's OAuth client (offline access, PKCE with the caller's S256 `code_challenge`) and a `state` bound to this organization, " +
      'single use and valid 10 minutes. The provider sends the browser back to `redirect_uri` with `code` and `state`; the caller completes the connection with `POST /integrations` ' +
      '(the code, the same `redirect_uri`, the `state` and its `code_verifier`).',
    tags: ['Integrations'],
    request: { body: StartConsentRequest },
    responses: {
      201: { description: 'Consent started', schema: Consent },
      ...UNAUTHORIZED,
      ...VALIDATION,
    },
  }),
  createConnection: defineRoute({
    operationId: 'createConnection',
    method: 'POST',
    path: '/integrations',
    group: 'integrations',
    summary: 'Connect a hosted-spreadsheet account (OAuth)',
    description:
      "Exchanges the authorization code of the provider's consent screen for a refresh token, stored encrypted (KMS) and never returned. " +
      'With the `state` and `code_verifier` of a consent started by `POST /integrations/consents`, the consent is checked and used up first: ' +
      "another organization's, used, expired, a different `redirect_uri` or a verifier that does not match its challenge is a 400. " +
      'The connection feeds `google-sheet` campaign sources and the file-picker token.',
    tags: ['Integrations'],
    request: { body: CreateConnectionRequest },
    responses: {
      201: { description: 'Connected', schema: Connection },
      ...BAD_REQUEST,
      ...UNAUTHORIZED,
      ...VALIDATION,
    },
  }),
  listConnections: defineRoute({
    operationId: 'listConnections',
    method: 'GET',
    path: '/integrations',
    group: 'integrations',
    summary: 'List integration connections',
    description:
      "The organization's integration connections, paginated. Refresh tokens are stored encrypted and never returned.",
    tags: ['Integrations'],
    request: { query: PaginationQuery },
    responses: {
      200: { description: 'One page of connections', schema: ConnectionList },
      ...UNAUTHORIZED,
      ...VALIDATION,
    },
  }),
  deleteConnection: defineRoute({
    operationId: 'deleteConnection',
    method: 'DELETE',
    path: '/integrations/{connection_id}',
    group: 'integrations',
    summary: 'Delete a connection (its stored token goes with it)',
    description:
      'Deletes the connection and its encrypted refresh token. Campaigns that read a sheet through it record a sync error on their next re-sync.',
    tags: ['Integrations'],
    request: { params: ConnectionIdParam },
    responses: { 204: { description: 'Deleted' }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  pickerToken: defineRoute({
    operationId: 'getSheetsPickerToken',
    method: 'POST',
    path: '/integrations/{connection_id}/sheets/picker-token',
    group: 'integrations',
    summary: 'Short-lived access token for the spreadsheet file picker',
    description:
      "Valid up to one hour; the refresh token never leaves the server. With it, what the browser's file picker needs: the provider's loader script, the app id and the developer key.",
    tags: ['Integrations'],
    request: { params: ConnectionIdParam },
    responses: {
      200: { description: 'Token', schema: PickerToken },
      ...BAD_REQUEST,
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
};
