/**
 * Single-table key design. Every entity's keys are built here and nowhere else; the README's
 * "Data model" section is the same table in prose. Access patterns:
 *
 * | entity            | pk                  | sk                                 | gsi1pk                | gsi1sk              |
 * |-------------------|---------------------|------------------------------------|-----------------------|---------------------|
 * | id counter        | COUNTER             | <counter name>                     |                       |                     |
 * | organization      | ORG#<orgId>         | ORG                                |                       |                     |
 * | API key           | APIKEY#<keyId>      | APIKEY                             | ORG#<orgId>#APIKEYS   | <createdAt>#<keyId> |
 * | agent             | ORG#<orgId>         | AGENT#<agentId, 12 digits>         |                       |                     |
 * | agent public id   | ORG#<orgId>         | AGENTPUB#<publicId>                |                       |                     |
 * | agent definition  | ORG#<orgId>         | AGENTDEF#<agentId>#<defId, 12 d.>  |                       |                     |
 *
 * - Get an API key by its id (authorizer): GetItem APIKEY#<keyId>.
 * - List an organization's keys (operator CLI): Query gsi1 on ORG#<orgId>#APIKEYS.
 * - Agents of an organization in id order: Query ORG#<orgId>, sk begins_with AGENT#.
 * - Agent by integer id: GetItem; by public id: GetItem on the alias, then on the agent. Both are
 *   scoped by the caller's organization, so another organization's agent is simply not found.
 * Integer ids come from atomic counters (UpdateItem ADD), unique per table.
 */
const pad = (n: number): string => String(n).padStart(12, '0');

export const keys = {
  counter: (name: string) => ({ pk: 'COUNTER', sk: name }),
  organization: (orgId: number) => ({ pk: `ORG#${orgId}`, sk: 'ORG' }),
  apiKey: (keyId: string) => ({ pk: `APIKEY#${keyId}`, sk: 'APIKEY' }),
  apiKeyByOrgIndex: (orgId: number, createdAt: string, keyId: string) => ({
    gsi1pk: `ORG#${orgId}#APIKEYS`,
    gsi1sk: `${createdAt}#${keyId}`,
  }),
  orgPartition: (orgId: number) => `ORG#${orgId}`,
  agent: (orgId: number, agentId: number) => ({ pk: `ORG#${orgId}`, sk: `AGENT#${pad(agentId)}` }),
  agentSkPrefix: 'AGENT#',
  agentPublicId: (orgId: number, publicId: string) => ({ pk: `ORG#${orgId}`, sk: `AGENTPUB#${publicId}` }),
  agentDefinition: (orgId: number, agentId: number, definitionId: number) => ({
    pk: `ORG#${orgId}`,
    sk: `AGENTDEF#${pad(agentId)}#${pad(definitionId)}`,
  }),
};

/** Key attributes are storage details; they are stripped before an item leaves a repository. */
export const KEY_ATTRIBUTES = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'expiresAt'] as const;

export function stripKeys<T extends Record<string, unknown>>(item: T): Omit<T, (typeof KEY_ATTRIBUTES)[number]> {
  const copy: Record<string, unknown> = { ...item };
  for (const attribute of KEY_ATTRIBUTES) delete copy[attribute];
  return copy as Omit<T, (typeof KEY_ATTRIBUTES)[number]>;
}
