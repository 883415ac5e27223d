import { decryptSecret, encryptSecret } from '../crypto/secret-box.ts';
import { createGuardedFetch } from '../net/guarded-fetch.ts';
import * as repository from '../repositories/agent-resources.ts';
import type { ToolRecord } from '../repositories/agent-resources.ts';

/**
 * A tool call's time and answer caps (the answer goes back into the model's context). A caller is
 * waiting on the line: after 2 s they hear the agent's "one moment", after 5 s the tool has failed
 * and the model is told so, rather than leaving them in silence.
 */
export const TOOL_CALL_TIMEOUT_MS = 5000;
export const MAX_TOOL_RESPONSE_BYTES = 256 * 1024;
/** The SSRF guard with a tool call's caps: how every tool is reached (the local stack's tool endpoint uses it for loopback tools). */
export const guardedToolFetch = createGuardedFetch({
  timeoutMs: TOOL_CALL_TIMEOUT_MS,
  maxResponseBytes: MAX_TOOL_RESPONSE_BYTES,
});

/** Binds a tool's encrypted headers to their organization and tool: a ciphertext cannot be moved. */
const headersContext = (orgId: number, toolId: string) => ({ organizationId: String(orgId), toolId });

/** Tool headers often carry credentials: stored encrypted like model keys (KMS on AWS). */
export async function sealToolHeaders(
  orgId: number,
  toolId: string,
  headers: Record<string, string>,
): Promise<Pick<ToolRecord, 'header_names' | 'headers_ciphertext'>> {
  const names = Object.keys(headers);
  return {
    header_names: names,
    headers_ciphertext: names.length
      ? await encryptSecret(JSON.stringify(headers), headersContext(orgId, toolId))
      : null,
  };
}

/**
 * Seals the headers of every tool stored before encryption at rest (operator migration,
 * `npm run admin -- tools encrypt-headers`). Each tool is rewritten with a conditional update
 * that holds only while its item still has exactly the plaintext read, so a rerun, a concurrent
 * run or a tool deleted meanwhile changes nothing twice: idempotent. Until then reads accept the
 * old shape (`plaintext_headers`).
 */
export async function encryptPlaintextToolHeaders(): Promise<{ found: number; encrypted: number; skipped: number }> {
  const counts = { found: 0, encrypted: 0, skipped: 0 };
  for await (const page of repository.toolsWithPlaintextHeaders()) {
    for (const { orgId, tool } of page) {
      const plaintext = tool.plaintext_headers!;
      counts.found += 1;
      const sealed = await sealToolHeaders(orgId, tool.id, plaintext);
      const done = await repository.sealPlaintextToolHeaders(orgId, { ...tool, plaintext_headers: plaintext }, sealed);
      counts[done ? 'encrypted' : 'skipped'] += 1;
    }
  }
  return counts;
}

/**
 * Calls an agent's HTTP tool with the model's arguments (GET/DELETE as query parameters, the
 * others as a JSON body), through the SSRF guard: the tool's address is checked again at every
 * call. Fails with the guard's OutboundRequestError (refused, timeout, too large, unreachable).
 * `send` replaces the guarded fetch only where the local stack or a test routes tools to a fake.
 */
export async function callTool(
  orgId: number,
  tool: ToolRecord,
  args: Record<string, unknown>,
  send: typeof fetch = guardedToolFetch,
): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = tool.headers_ciphertext
    ? JSON.parse(await decryptSecret(tool.headers_ciphertext, headersContext(orgId, tool.id)))
    : (tool.plaintext_headers ?? {});
  const url = new URL(tool.url);
  const inQuery = tool.method === 'GET' || tool.method === 'DELETE';
  if (inQuery) for (const [name, value] of Object.entries(args)) url.searchParams.set(name, String(value));
  const response = await send(url, {
    method: tool.method,
    headers: inQuery ? headers : { ...headers, 'Content-Type': 'application/json' },
    body: inQuery ? undefined : JSON.stringify(args),
  });
  return { status: response.status, body: await response.text() };
}
