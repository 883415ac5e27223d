/** An agent is `active` until archived; archived agents keep their runs but are hidden by filters. */
export const AGENT_STATUSES = ['active', 'archived'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];
