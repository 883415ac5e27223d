import { expect, inject } from 'vitest';
import type { SimulatedTelnyxAccount } from '../../local/carrier/telnyx-wire.ts';
import { apiClient, type TestOrganization } from './api.ts';

/** How the local Telnyx saw an account's calls (`GET /_simulator/accounts/{connection_id}`). */
export interface TelnyxAccountStats {
  calls_created_at: number[];
  calls_ended: { hangup_source: string; stream_ended_at: number | null; hung_up_at: number }[];
}

/** An account at the local Telnyx owning `phoneNumbers` (what the Telnyx portal gives a customer). */
export async function telnyxAccount(
  phoneNumbers: string[],
): Promise<SimulatedTelnyxAccount & { stats: () => Promise<TelnyxAccountStats> }> {
  const response = await fetch(`${inject('telnyxOrigin')}/_simulator/accounts`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ phone_numbers: phoneNumbers }),
  });
  expect(response.status).toBe(201);
  const account = (await response.json()) as SimulatedTelnyxAccount;
  const stats = async () =>
    (await (
      await fetch(`${inject('telnyxOrigin')}/_simulator/accounts/${account.connection_id}`)
    ).json()) as TelnyxAccountStats;
  return { ...account, stats };
}

/** Makes the organization's calls go through its own Telnyx `account`, with `callerId`. */
export const useTelnyx = (org: TestOrganization, account: SimulatedTelnyxAccount, callerId: string) =>
  apiClient().request('PUT', '/telephony-configs', {
    key: org.key,
    body: {
      credentials: {
        provider: 'telnyx',
        api_key: account.api_key,
        public_key: account.public_key,
        connection_id: account.connection_id,
      },
      caller_id: callerId,
    },
  });
