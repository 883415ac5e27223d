import type { UsageEntry } from '../domain/usage.ts';
import { keys, stripKeys } from './keys.ts';
import { queryItems } from './table.ts';

/** Billing records of calls that ended in [from, to) (ISO timestamps), oldest first. */
export async function listUsage(orgId: number, from: string, to: string): Promise<UsageEntry[]> {
  const items = await queryItems({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': keys.orgPartition(orgId), ':from': `USAGE#${from}`, ':to': `USAGE#${to}` },
  });
  return items.map((item) => {
    const { type: _type, ...entry } = stripKeys(item);
    return entry as unknown as UsageEntry;
  });
}
