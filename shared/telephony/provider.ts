import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The telephony provider adapter. The shape is the common one of programmable-voice providers: an
 * HTTP API that dials and streams the call's audio to a WebSocket (Media Streams: JSON frames,
 * base64 8 kHz mu-law), and signed HTTP status callbacks. The local simulator implements the same
 * API, so this one client serves both.
 *
 *   POST {TELEPHONY_API_URL}/calls   Authorization: Bearer {TELEPHONY_API_KEY}, Idempotency-Key: {run_ref}
 *     {to, from, stream_url, status_callback_url, custom_parameters: {run_ref}}  → 201 {call_id}
 *   Status callback: POST {status_callback_url} {call_id, status, custom_parameters, timestamp}
 *     with X-Telephony-Signature = base64(HMAC-SHA256(TELEPHONY_WEBHOOK_SECRET, url + body))
 */
export type ProviderCallStatus = 'answered' | 'completed' | 'busy' | 'no-answer' | 'voicemail' | 'failed';

export interface DialRequest {
  to: string;
  from: string;
  /** `<orgId>.<agentId>.<runId>`: comes back in the media stream and in every status callback. */
  runRef: string;
  streamUrl: string;
  statusCallbackUrl: string;
}

export interface StatusCallback {
  call_id: string;
  status: ProviderCallStatus;
  custom_parameters: { run_ref: string };
  timestamp: string;
}

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
}

function settings() {
  const apiUrl = process.env.TELEPHONY_API_URL;
  if (!apiUrl) throw new ProviderError('TELEPHONY_API_URL is not configured');
  return { apiUrl: apiUrl.replace(/\/$/, ''), apiKey: process.env.TELEPHONY_API_KEY ?? '' };
}

/** Asks the provider to dial. The run reference is the idempotency key: a retried dial never rings twice. */
export async function dial(request: DialRequest): Promise<{ callId: string }> {
  const { apiUrl, apiKey } = settings();
  const response = await fetch(`${apiUrl}/calls`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': request.runRef },
    body: JSON.stringify({
      to: request.to,
      from: request.from,
      stream_url: request.streamUrl,
      status_callback_url: request.statusCallbackUrl,
      custom_parameters: { run_ref: request.runRef },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new ProviderError(`Provider refused the call: HTTP ${response.status} ${await response.text()}`);
  const body = (await response.json()) as { call_id?: string };
  if (!body.call_id) throw new ProviderError('Provider answered without a call_id');
  return { callId: body.call_id };
}

export function signCallback(secret: string, url: string, body: string): string {
  return createHmac('sha256', secret).update(url + body).digest('base64');
}

export function callbackSignatureValid(secret: string, url: string, body: string, signature: string | undefined): boolean {
  if (!signature || !secret) return false;
  const expected = Buffer.from(signCallback(secret, url, body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
