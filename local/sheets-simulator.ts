import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pickerScript } from './sheets-picker-script.ts';

export interface SheetsSimulator {
  /** Environment that points the spreadsheet adapter here. */
  env: Record<string, string>;
  /** Replaces a spreadsheet's cells (tests, demos); also `PUT /fake/spreadsheets/{id}` with `{values, name?}`. */
  setValues: (spreadsheetId: string, values: string[][], name?: string) => void;
  stop: () => Promise<void>;
}

/** Access tokens live an hour, as Google's do; authorization codes ten minutes. */
const ACCESS_TOKEN_SECONDS = 3600;
const CODE_SECONDS = 600;
export const SIMULATED_ACCOUNT_EMAIL = 'sheets-user@example.com';
/** The platform's OAuth client as the local stack registers it (Google's shape: the project number first). */
export const LOCAL_SHEETS_CLIENT = { clientId: '123456789012-local.apps.googleusercontent.com', clientSecret: 'local' };
const SPREADSHEET_MIME = 'application/vnd.google-apps.spreadsheet';

interface IssuedCode {
  redirectUri: string;
  codeChallenge: string | null;
  expiresAt: number;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** Google's consent screen, reduced to its choice: the account, what the app asks for, Allow or Cancel. */
const consentPage = (fields: URLSearchParams) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in - Google Accounts (local)</title></head>
<body><main>
<h1>The platform wants to access your Google Account</h1>
<p>${escapeHtml(SIMULATED_ACCOUNT_EMAIL)}</p>
<ul>${(fields.get('scope') ?? '')
  .split(' ')
  .map((scope) => `<li>${escapeHtml(scope)}</li>`)
  .join('')}</ul>
<form method="post" action="/o/oauth2/v2/auth/approve">
${[...fields].map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`).join('\n')}
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Cancel</button>
</form></main></body></html>`;

/**
 * A local hosted-spreadsheet provider that speaks Google's protocols: the OAuth 2.0 consent screen
 * (`/o/oauth2/v2/auth`, PKCE) and token endpoint (only codes it issued, once, for the same
 * redirect URI and with the matching `code_verifier`), user info, the Sheets API values read, the
 * Drive files list and the Picker's loader script, over in-memory spreadsheets.
 */
export async function startSheetsSimulator(): Promise<SheetsSimulator> {
  const spreadsheets = new Map<string, { name: string; values: string[][] }>();
  const refreshTokens = new Set<string>();
  const accessTokens = new Map<string, number>();
  const codes = new Map<string, IssuedCode>();

  const issueAccessToken = () => {
    const token = `ya29.local-${randomBytes(12).toString('hex')}`;
    accessTokens.set(token, Date.now() + ACCESS_TOKEN_SECONDS * 1000);
    return token;
  };
  const authorized = (request: IncomingMessage) => {
    const token = request.headers.authorization?.replace(/^Bearer /, '') ?? '';
    return (accessTokens.get(token) ?? 0) > Date.now();
  };

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', 'http://localhost');
    // The browser reads the Drive list and the Picker's script from the console's origin, as from Google's.
    const cors = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'Authorization' };
    const reply = (status: number, payload: unknown) => {
      response.writeHead(status, { 'Content-Type': 'application/json', ...cors }).end(JSON.stringify(payload));
    };
    const page = (status: number, html: string) =>
      response.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
    if (request.method === 'OPTIONS') return response.writeHead(204, cors).end();
    if (request.method === 'GET' && url.pathname === '/o/oauth2/v2/auth') {
      const fields = url.searchParams;
      const problem =
        fields.get('client_id') !== LOCAL_SHEETS_CLIENT.clientId
          ? 'invalid_client'
          : fields.get('response_type') !== 'code' || !/^https?:\/\//.test(fields.get('redirect_uri') ?? '')
            ? 'invalid_request'
            : fields.has('code_challenge') && fields.get('code_challenge_method') !== 'S256'
              ? 'invalid_request'
              : undefined;
      return problem
        ? page(400, `<!doctype html><html lang="en"><title>Error</title><h1>Error 400: ${problem}</h1></html>`)
        : page(200, consentPage(fields));
    }
    if (request.method === 'POST' && url.pathname === '/o/oauth2/v2/auth/approve') {
      const fields = new URLSearchParams(body);
      const back = new URL(fields.get('redirect_uri') ?? '');
      if (fields.get('state')) back.searchParams.set('state', fields.get('state')!);
      if (fields.get('decision') === 'allow') {
        const code = `4/local-${randomBytes(16).toString('hex')}`;
        codes.set(code, {
          redirectUri: fields.get('redirect_uri')!,
          codeChallenge: fields.get('code_challenge'),
          expiresAt: Date.now() + CODE_SECONDS * 1000,
        });
        back.searchParams.set('code', code);
        back.searchParams.set('scope', fields.get('scope') ?? '');
      } else back.searchParams.set('error', 'access_denied');
      return response.writeHead(302, { Location: back.toString() }).end();
    }
    if (request.method === 'GET' && url.pathname === '/js/api.js') {
      return response
        .writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', ...cors })
        .end(pickerScript(`http://${request.headers.host}`));
    }
    if (request.method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams(body);
      if (
        form.get('client_id') !== LOCAL_SHEETS_CLIENT.clientId ||
        form.get('client_secret') !== LOCAL_SHEETS_CLIENT.clientSecret
      )
        return reply(401, { error: 'invalid_client' });
      const issued = codes.get(form.get('code') ?? '');
      if (form.get('grant_type') === 'authorization_code' && issued) {
        codes.delete(form.get('code')!);
        const verifier = form.get('code_verifier');
        const verified = issued.codeChallenge
          ? verifier !== null && createHash('sha256').update(verifier).digest('base64url') === issued.codeChallenge
          : true;
        if (issued.expiresAt < Date.now() || issued.redirectUri !== form.get('redirect_uri') || !verified)
          return reply(400, { error: 'invalid_grant', error_description: 'Bad Request' });
        const refreshToken = `1//local-${randomBytes(12).toString('hex')}`;
        refreshTokens.add(refreshToken);
        return reply(200, {
          access_token: issueAccessToken(),
          expires_in: ACCESS_TOKEN_SECONDS,
          refresh_token: refreshToken,
          token_type: 'Bearer',
        });
      }
      if (form.get('grant_type') === 'refresh_token' && refreshTokens.has(form.get('refresh_token') ?? '')) {
        return reply(200, { access_token: issueAccessToken(), expires_in: ACCESS_TOKEN_SECONDS, token_type: 'Bearer' });
      }
      return reply(400, { error: 'invalid_grant' });
    }
    if (request.method === 'GET' && url.pathname === '/userinfo') {
      return authorized(request)
        ? reply(200, { email: SIMULATED_ACCOUNT_EMAIL })
        : reply(401, { error: 'invalid_token' });
    }
    const values = /^\/v4\/spreadsheets\/([^/]+)\/values\/(.+)$/.exec(url.pathname);
    if (request.method === 'GET' && values) {
      if (!authorized(request)) return reply(401, { error: 'invalid_token' });
      const sheet = spreadsheets.get(decodeURIComponent(values[1]!));
      return sheet
        ? reply(200, { range: decodeURIComponent(values[2]!), majorDimension: 'ROWS', values: sheet.values })
        : reply(404, { error: 'not found' });
    }
    if (request.method === 'GET' && url.pathname === '/drive/v3/files') {
      if (!authorized(request)) return reply(401, { error: 'invalid_token' });
      const wanted = /mimeType\s*=\s*'([^']+)'/.exec(url.searchParams.get('q') ?? '')?.[1];
      const files = [...spreadsheets]
        .map(([id, sheet]) => ({ id, name: sheet.name, mimeType: SPREADSHEET_MIME }))
        .filter((file) => !wanted || file.mimeType === wanted);
      return reply(200, { files });
    }
    const fake = /^\/fake\/spreadsheets\/([^/]+)$/.exec(url.pathname);
    if (request.method === 'PUT' && fake) {
      const id = decodeURIComponent(fake[1]!);
      const sheet = JSON.parse(body) as { values: string[][]; name?: string };
      spreadsheets.set(id, { name: sheet.name ?? id, values: sheet.values });
      return reply(204, {});
    }
    return reply(404, { error: 'not found' });
  }

  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    env: {
      SHEETS_OAUTH_AUTHORIZE_URL: `${origin}/o/oauth2/v2/auth`,
      SHEETS_PICKER_SCRIPT_URL: `${origin}/js/api.js`,
      SHEETS_OAUTH_TOKEN_URL: `${origin}/token`,
      SHEETS_USERINFO_URL: `${origin}/userinfo`,
      SHEETS_API_URL: origin,
    },
    setValues: (spreadsheetId, sheetValues, name) =>
      spreadsheets.set(spreadsheetId, { name: name ?? spreadsheetId, values: sheetValues }),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
