import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SheetsSimulator {
  /** Environment that points the spreadsheet adapter here. */
  env: Record<string, string>;
  /** Replaces a spreadsheet's cells (tests, demos); also `PUT /fake/spreadsheets/{id}` with `{values}`. */
  setValues: (spreadsheetId: string, values: string[][]) => void;
  stop: () => Promise<void>;
}

/** Access tokens live an hour, as Google's do. */
const ACCESS_TOKEN_SECONDS = 3600;
export const SIMULATED_ACCOUNT_EMAIL = 'sheets-user@example.com';

/**
 * A local hosted-spreadsheet provider: the OAuth token endpoint (any authorization code is
 * accepted), user info, and the Sheets API values read, over in-memory spreadsheets.
 */
export async function startSheetsSimulator(): Promise<SheetsSimulator> {
  const spreadsheets = new Map<string, string[][]>();
  const refreshTokens = new Set<string>();
  const accessTokens = new Map<string, number>();

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
    const reply = (status: number, payload: unknown) => {
      response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(payload));
    };
    if (request.method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams(body);
      if (form.get('grant_type') === 'authorization_code' && form.get('code')) {
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
        ? reply(200, { range: decodeURIComponent(values[2]!), majorDimension: 'ROWS', values: sheet })
        : reply(404, { error: 'not found' });
    }
    const fake = /^\/fake\/spreadsheets\/([^/]+)$/.exec(url.pathname);
    if (request.method === 'PUT' && fake) {
      spreadsheets.set(decodeURIComponent(fake[1]!), (JSON.parse(body) as { values: string[][] }).values);
      return reply(204, {});
    }
    return reply(404, { error: 'not found' });
  }

  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    env: {
      SHEETS_OAUTH_TOKEN_URL: `${origin}/token`,
      SHEETS_USERINFO_URL: `${origin}/userinfo`,
      SHEETS_API_URL: origin,
    },
    setValues: (spreadsheetId, sheetValues) => spreadsheets.set(spreadsheetId, sheetValues),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
