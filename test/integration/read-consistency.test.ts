import { beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';

/**
 * A list read right after a write sees it: on AWS a Query is eventually consistent unless it asks
 * otherwise, which DynamoDB Local (always consistent) never shows, so this checks what is sent.
 */
const api = apiClient();
let org: TestOrganization;

interface SentQuery {
  IndexName?: string;
  ConsistentRead?: boolean;
}

async function repositories() {
  Object.assign(process.env, inject('stackEnv'));
  const { dynamoDocumentClient } = await import('../../shared/aws/clients.ts');
  return {
    client: dynamoDocumentClient(),
    agents: await import('../../shared/repositories/agents.ts'),
    contacts: await import('../../shared/repositories/campaign-contacts.ts'),
  };
}

/** The Query inputs the test process's client sends while `body` runs. */
async function queriesSentBy(body: () => Promise<unknown>): Promise<SentQuery[]> {
  const { client } = await repositories();
  const sent: SentQuery[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'QueryCommand') sent.push({ ...(args.input as SentQuery) });
      return next(args);
    },
    { step: 'initialize', name: 'readConsistencyProbe' },
  );
  try {
    await body();
  } finally {
    client.middlewareStack.remove('readConsistencyProbe');
  }
  return sent;
}

beforeAll(async () => {
  org = await newOrganization('Read consistency');
});

describe.skipIf(needsLocalStack)('lists read the table consistently', () => {
  it('lists and counts an agent created just before with strongly consistent reads of the table', async () => {
    const { agents } = await repositories();
    const created = (await api.request('POST', '/agents', { key: org.key, body: { name: 'Just saved' } })).body as {
      id: number;
    };
    let listed: { id: number }[] = [];
    let counted = 0;
    const sent = await queriesSentBy(async () => {
      listed = await agents.listAgents(org.organizationId, ['active'], 0, 50);
      counted = await agents.countAgents(org.organizationId, ['active']);
      for await (const page of agents.agentPages(org.organizationId, ['active'])) listed.push(...page);
    });
    expect(listed.map((agent) => agent.id)).toEqual([created.id, created.id]);
    expect(counted).toBe(1);
    expect(sent).toHaveLength(3);
    expect(sent.every((query) => query.IndexName === undefined && query.ConsistentRead === true)).toBe(true);
  });

  it('reads an index without asking for consistency, which DynamoDB refuses there', async () => {
    const { contacts } = await repositories();
    let dialing: unknown[] = ['not read'];
    const sent = await queriesSentBy(async () => {
      dialing = await contacts.dialingContacts(org.organizationId, 999_999);
    });
    expect(dialing).toEqual([]);
    expect(sent).toEqual([expect.objectContaining({ IndexName: 'gsi1', ConsistentRead: false })]);
  });
});
