import { BadRequestError } from './errors.ts';
import { AGENT_STATUSES, type AgentStatus } from './agent.ts';

/**
 * Reads the agent list's `status` filter: one status or a comma-separated list. No filter means
 * every status. Anything else is a 400, as the spec says (not a 422).
 */
export function parseAgentStatusFilter(raw: string | undefined): AgentStatus[] {
  if (raw === undefined) return [...AGENT_STATUSES];
  const values = raw.split(',').map((value) => value.trim());
  const invalid = values.filter((value) => !(AGENT_STATUSES as readonly string[]).includes(value));
  if (values.length === 0 || invalid.length > 0) {
    throw new BadRequestError(
      `Invalid status filter '${raw}': use one or more of ${AGENT_STATUSES.join(', ')}, separated by commas`,
    );
  }
  return [...new Set(values as AgentStatus[])];
}
