/**
 * A typed TypeScript client of the Voice Agent Platform API: `openapi-fetch` over the types
 * `openapi-typescript` generates from the OpenAPI document (`client/openapi.d.ts`, regenerated with
 * `npm run generate:client`; a test fails when it differs from what the API serves).
 *
 *   const api = createVoiceAgentClient({ baseUrl: 'http://127.0.0.1:3000/api/v1', apiKey: process.env.KEY! });
 *   const { data, error } = await api.POST('/agents/{agent_id}/calls', {
 *     params: { path: { agent_id: 'agent_…' } },
 *     body: { phone_number: '+48601234561', initial_context: { name: 'Anna' } },
 *   });
 */
import createClient, { type Client } from 'openapi-fetch';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components, paths, webhooks } from './openapi.d.ts';

export type { components, paths, webhooks };
export type VoiceAgentClient = Client<paths>;

export interface ClientOptions {
  /** Ends with `/api/v1`, e.g. `https://<api-id>.execute-api.<region>.amazonaws.com/prod/api/v1`. */
  baseUrl: string;
  /** The organization's API key, sent as `X-API-Key`. */
  apiKey: string;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof globalThis.fetch;
}

export function createVoiceAgentClient({ baseUrl, apiKey, fetch }: ClientOptions): VoiceAgentClient {
  return createClient<paths>({
    baseUrl: baseUrl.replace(/\/$/, ''),
    headers: { 'X-API-Key': apiKey },
    ...(fetch ? { fetch } : {}),
  });
}

/** Every event a webhook can receive, typed by its `type`. */
export type WebhookEvent = {
  [Type in keyof webhooks]: webhooks[Type]['post']['requestBody'] extends {
    content: { 'application/json': infer Body };
  }
    ? Body
    : never;
}[keyof webhooks];

export { WebhookVerificationError };

/**
 * Checks a delivery's Standard Webhooks signature (any of the space-separated signatures, so it
 * holds during a secret rotation) and timestamp (5 minutes of tolerance), then returns the typed
 * event. Pass the raw body exactly as received and the request's headers. Throws
 * `WebhookVerificationError` otherwise.
 */
export function verifyWebhook(
  rawBody: string | Buffer,
  headers: Record<string, string | string[] | undefined> | Headers,
  secret: string,
): WebhookEvent {
  const plain: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [name, value] of entries)
    if (value !== undefined) plain[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return new Webhook(secret).verify(
    typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'),
    plain,
  ) as WebhookEvent;
}
