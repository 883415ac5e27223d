/**
 * Runs an agent's HTTP tool for the model through the platform's tool caller
 * (shared/services/tool-calls.ts: SSRF guard, decrypted headers, time and size caps). The answer
 * fed back to the model is JSON text, `{status, body}` (body cut to what a model turn can hold) or
 * `{error}`; this never throws.
 */
import type { ToolRecord } from '../../../shared/repositories/agent-resources.ts';
import { callTool } from '../../../shared/services/tool-calls.ts';

/** The most of a tool's answer given to the model. */
export const TOOL_ANSWER_MAX_CHARACTERS = 16 * 1024;

export interface ToolExecutorOptions {
  /** Replaces the guarded fetch: only the local stack and tests route tools to a fake endpoint. */
  fetch?: typeof fetch;
}

export async function executeHttpTool(
  orgId: number,
  tool: ToolRecord,
  argumentsJson: string,
  options: ToolExecutorOptions = {},
): Promise<string> {
  let args: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(argumentsJson || '{}');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    args = parsed as Record<string, unknown>;
  } catch {
    return JSON.stringify({ error: 'The arguments are not a JSON object' });
  }
  try {
    const { status, body } = await callTool(orgId, tool, args, options.fetch);
    const truncated = body.length > TOOL_ANSWER_MAX_CHARACTERS;
    return JSON.stringify({
      status,
      body: body.slice(0, TOOL_ANSWER_MAX_CHARACTERS),
      ...(truncated ? { truncated: true } : {}),
    });
  } catch (error) {
    return JSON.stringify({ error: `The tool could not be reached: ${(error as Error).message}` });
  }
}
