import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

export interface GatewayManagement {
  endpoint: string;
  stop: () => Promise<void>;
}

/**
 * The part of the API Gateway management API the operator tools use (REST-JSON, as the SDK's
 * APIGatewayClient speaks it): CreateApiKey, GetApiKeys, CreateUsagePlanKey and
 * FlushStageAuthorizersCache, the last one emptying the local gateway's authorizer cache.
 */
export async function startGatewayManagement(options: {
  flushAuthorizerCache: () => void;
}): Promise<GatewayManagement> {
  const apiKeys = new Map<string, { id: string; name: string; value: string; enabled: boolean }>();
  const planKeys = new Set<string>();

  const reply = (response: ServerResponse, status: number, body?: unknown, errorType?: string) => {
    response.writeHead(status, {
      'Content-Type': 'application/json',
      ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
    });
    response.end(
      body === undefined ? '' : JSON.stringify(errorType ? { __type: errorType, message: String(body) } : body),
    );
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
    const url = new URL(request.url ?? '/', 'http://localhost');
    const route = `${request.method} ${url.pathname}`;
    if (route === 'POST /apikeys') {
      const value = String(body.value ?? randomUUID());
      if ([...apiKeys.values()].some((key) => key.value === value))
        return reply(response, 409, 'API key already exists', 'ConflictException');
      const key = {
        id: randomUUID().slice(0, 10),
        name: String(body.name ?? ''),
        value,
        enabled: body.enabled !== false,
      };
      apiKeys.set(key.id, key);
      return reply(response, 201, key);
    }
    if (route === 'GET /apikeys') {
      const name = url.searchParams.get('name') ?? '';
      const items = [...apiKeys.values()].filter((key) => key.name.startsWith(name));
      return reply(response, 200, { item: items, items });
    }
    const planKey = /^POST \/usageplans\/([^/]+)\/keys$/.exec(route);
    if (planKey) {
      const key = apiKeys.get(String(body.keyId));
      if (!key) return reply(response, 404, 'Invalid API Key identifier specified', 'NotFoundException');
      if (planKeys.has(`${planKey[1]}/${key.id}`))
        return reply(response, 409, 'Usage plan key already exists', 'ConflictException');
      planKeys.add(`${planKey[1]}/${key.id}`);
      return reply(response, 201, { id: key.id, type: 'API_KEY', name: key.name, value: key.value });
    }
    if (request.method === 'DELETE' && /^\/restapis\/[^/]+\/stages\/[^/]+\/cache\/authorizers$/.test(url.pathname)) {
      options.flushAuthorizerCache();
      return reply(response, 202);
    }
    reply(response, 404, `Unsupported ${route}`, 'NotFoundException');
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) =>
      reply(response, 400, (error as Error).message, 'BadRequestException'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
