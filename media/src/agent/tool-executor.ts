/**
 * Runs an agent's HTTP tool for the model: GET/DELETE send the arguments as query parameters,
 * the others as a JSON body; a timeout and a cap on the answer's size; no redirects (a redirect
 * could lead past the address checks of the fetch used). The answer fed back to the model is
 * JSON text, `{status, body}` or `{error}`; this never throws.
 *
 * `fetch` is injected: the media service passes the platform's SSRF-guarded fetch; the local
 * stack passes one that reaches its local tool endpoint (local/fakes/tool-endpoint.ts).
 */
import type { ToolRecord } from '../../../shared/repositories/agent-resources.ts';

export const TOOL_TIMEOUT_MS = 5_000;
export const TOOL_MAX_RESPONSE_BYTES = 16 * 1024;

export interface ToolExecutorOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
  maxResponseBytes?: number;
}

export async function executeHttpTool(tool: ToolRecord, argumentsJson: string, options: ToolExecutorOptions = {}): Promise<string> {
  let args: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(argumentsJson || '{}');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    args = parsed as Record<string, unknown>;
  } catch {
    return JSON.stringify({ error: 'The arguments are not a JSON object' });
  }
  const url = new URL(tool.url);
  const inQuery = tool.method === 'GET' || tool.method === 'DELETE';
  if (inQuery) for (const [key, value] of Object.entries(args)) url.searchParams.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  const cap = options.maxResponseBytes ?? TOOL_MAX_RESPONSE_BYTES;
  try {
    const response = await (options.fetch ?? fetch)(url, {
      method: tool.method,
      headers: { ...tool.headers, ...(inQuery ? {} : { 'Content-Type': 'application/json' }), Accept: 'application/json, text/plain;q=0.9' },
      body: inQuery ? undefined : JSON.stringify(args),
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? TOOL_TIMEOUT_MS),
    });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      return JSON.stringify({ error: `The tool answered a redirect (${response.status}), which is not followed` });
    }
    const { text, truncated } = await readCapped(response, cap);
    return JSON.stringify({ status: response.status, body: text, ...(truncated ? { truncated: true } : {}) });
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${options.timeoutMs ?? TOOL_TIMEOUT_MS} ms` : (error as Error).message;
    return JSON.stringify({ error: `The tool could not be reached: ${reason}` });
  }
}

/** The body as text, at most `cap` bytes (the rest is not read). */
async function readCapped(response: Response, cap: number): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: '', truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > cap) {
      chunks.push(value.subarray(0, cap - size));
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated };
}
