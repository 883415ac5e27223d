/** Identifies a run across systems (provider callbacks, media stream): `<orgId>.<agentId>.<runId>`. */
export interface RunRef {
  organizationId: number;
  agentId: number;
  runId: number;
}

/** The run reference rides in the status callback URL, which the provider signs with the rest of the request. */
export const RUN_QUERY_PARAMETER = 'run';

export const formatRunRef = (ref: RunRef): string => `${ref.organizationId}.${ref.agentId}.${ref.runId}`;

export function parseRunRef(text: string): RunRef | undefined {
  const match = /^(\d{1,15})\.(\d{1,15})\.(\d{1,15})$/.exec(text);
  if (!match) return undefined;
  return { organizationId: Number(match[1]), agentId: Number(match[2]), runId: Number(match[3]) };
}
