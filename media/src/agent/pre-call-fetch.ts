/**
 * A flow's pre-call fetch: its start node's URL fetched (GET, JSON object) through the SSRF guard
 * as the call starts; the listed top-level keys become variables of the call. A fetch that fails
 * leaves them unset (the call goes on; its logs say why).
 */
import { createGuardedFetch, type FetchLike } from '../../../shared/net/guarded-fetch.ts';
import type { FlowDefinition } from '../../../shared/domain/flows.ts';
import { renderTemplate } from './call-plan.ts';

const PRE_CALL_FETCH_TIMEOUT_MS = 5000;
const PRE_CALL_FETCH_MAX_BYTES = 64_000;

const guardedPreCallFetch = createGuardedFetch({
  timeoutMs: PRE_CALL_FETCH_TIMEOUT_MS,
  maxResponseBytes: PRE_CALL_FETCH_MAX_BYTES,
});

export async function preCallVariables(
  flow: FlowDefinition | null,
  context: Record<string, unknown>,
  options: { fetch?: FetchLike; log: (message: string) => void },
): Promise<Record<string, unknown>> {
  const start = flow?.nodes.find((node) => node.type === 'startCall');
  const spec = start?.type === 'startCall' ? start.pre_call_fetch : undefined;
  if (!spec) return {};
  const url = renderTemplate(spec.url, context);
  try {
    const response = await (options.fetch ?? guardedPreCallFetch)(url, {
      headers: { Accept: 'application/json' },
      signal: AbortSignal.timeout(PRE_CALL_FETCH_TIMEOUT_MS),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const text = await response.text();
    if (text.length > PRE_CALL_FETCH_MAX_BYTES) throw new Error(`an answer over ${PRE_CALL_FETCH_MAX_BYTES} bytes`);
    const body: unknown = JSON.parse(text);
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('the answer is not a JSON object');
    const values = Object.fromEntries(
      spec.variables.flatMap((name) => {
        const value = (body as Record<string, unknown>)[name];
        return Object.hasOwn(body, name) && value !== null && typeof value !== 'object' ? [[name, value]] : [];
      }),
    );
    options.log(`Pre-call fetch: ${Object.keys(values).join(', ') || 'no variable'} from ${new URL(url).host}`);
    return values;
  } catch (error) {
    options.log(
      `Pre-call fetch failed (${error instanceof Error ? error.message : String(error)}): its variables are unset`,
    );
    return {};
  }
}
