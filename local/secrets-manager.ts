import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalSecretsManager {
  endpoint: string;
  /** ARN of each secret by name. */
  arns: Record<string, string>;
  /** Adds a secret known only once its service is up (e.g. a fake provider's key); returns its ARN. */
  put: (name: string, value: string) => string;
  stop: () => Promise<void>;
}

/**
 * A Secrets Manager endpoint (`GetSecretValue`, AWS JSON 1.1 protocol) for the SDK client that
 * Powertools Parameters uses, serving the local stack's secrets: handlers read secrets exactly as
 * on AWS (shared/config/secrets.ts).
 */
export async function startLocalSecretsManager(options: {
  region: string;
  secrets: Record<string, string>;
}): Promise<LocalSecretsManager> {
  const arns: Record<string, string> = {};
  const byId = new Map<string, { name: string; arn: string; value: string }>();
  const put = (name: string, value: string): string => {
    const secret = { name, arn: `arn:aws:secretsmanager:${options.region}:000000000000:secret:${name}-local`, value };
    byId.set(name, secret).set(secret.arn, secret);
    arns[name] = secret.arn;
    return secret.arn;
  };
  for (const [name, value] of Object.entries(options.secrets)) put(name, value);
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const reply = (status: number, body: unknown) => {
        response.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify(body));
      };
      const action = String(request.headers['x-amz-target'] ?? '').split('.')[1];
      if (action !== 'GetSecretValue')
        return reply(400, { __type: 'InvalidRequestException', message: `Unsupported action ${action}` });
      const { SecretId } = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { SecretId?: string };
      const secret = SecretId ? byId.get(SecretId) : undefined;
      if (!secret)
        return reply(400, {
          __type: 'ResourceNotFoundException',
          message: "Secrets Manager can't find the specified secret.",
        });
      reply(200, {
        ARN: secret.arn,
        Name: secret.name,
        SecretString: secret.value,
        VersionId: randomUUID(),
        VersionStages: ['AWSCURRENT'],
        CreatedDate: Date.now() / 1000,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    arns,
    put,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
