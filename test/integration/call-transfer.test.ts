import { describe, expect, it } from 'vitest';
import { apiClient, needsLocalStack, newOrganization } from '../support/api.ts';
import { describeTransfers } from '../support/call-transfers.ts';

/** Transfers through the local Twilio (the local Telnyx: call-transfer-telnyx.test.ts). */
describeTransfers('twilio');

const api = apiClient();

describe.skipIf(needsLocalStack)('transfer validation', () => {
  it('refuses destinations that are not numbers or SIP URIs, and names used twice', async () => {
    const org = await newOrganization('Transfer validation', 1);
    const refused = await api.request('POST', '/agents', {
      key: org.key,
      body: {
        name: 'Bad transfer',
        workflow_definition: { greeting: 'Hi.' },
        workflow_configurations: {
          transfer: {
            destinations: [
              { name: 'desk', address: '555-1234', description: 'Desk' },
              { name: 'desk', address: 'sip:desk@pbx.example.com', description: 'Desk again' },
            ],
          },
        },
      },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail.map((issue: { loc: unknown[] }) => issue.loc.slice(2).join('.'))).toEqual(
      expect.arrayContaining(['transfer.destinations.0.address']),
    );
  });
});
