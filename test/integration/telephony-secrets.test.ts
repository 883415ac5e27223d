import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSecretsManager, type LocalSecretsManager } from '../../local/secrets-manager.ts';
import { apiClient, newOrganization, needsLocalStack, type TestOrganization } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';

/**
 * A stack deployed for the first time: its telephony secret still holds what the stack put in it
 * (a placeholder), or an operator filled it with something that is not an account. This file's
 * own worker reads the platform account from its own Secrets Manager stand-in, through the same
 * code the functions run, against the local stack's table.
 */
const api = apiClient();
let secretsManager: LocalSecretsManager;
let org: TestOrganization;
let agent: { id: number; public_id: string };

const FIRST_DEPLOY = { provider: 'twilio', account_sid: 'set-me', auth_token: 'set-me' };

beforeAll(async () => {
  if (needsLocalStack) return;
  secretsManager = await startLocalSecretsManager({
    region: 'us-east-1',
    secrets: {
      'first-deploy': JSON.stringify(FIRST_DEPLOY),
      'not-json': 'AC123:token',
      'empty-object': '{}',
      'wrong-account': JSON.stringify({ provider: 'telnyx', api_key: 'KEY0123456789' }),
    },
  });
  org = await newOrganization('Fresh deployment', 2);
  // After newOrganization, which sets the stack's environment.
  Object.assign(process.env, { AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.endpoint });
  agent = (
    await api.request('POST', '/agents', {
      key: org.key,
      body: { name: 'Too early', workflow_definition: { greeting: 'Hello.', steps: [], closing: 'Bye.' } },
    })
  ).body as { id: number; public_id: string };
});
afterAll(() => secretsManager?.stop());

describe.skipIf(needsLocalStack)('the platform telephony account before the operator fills it in', () => {
  it.each([
    ['first-deploy', /still holds the placeholder/],
    ['not-json', /empty or not a JSON object/],
    ['empty-object', /provider/],
    ['wrong-account', /public_key/],
  ])('secret %s: a call answers 503 naming the secret to fill in, and nothing is written', async (name, problem) => {
    process.env.TELEPHONY_SECRET_ARN = secretsManager.arns[name];
    const { placeCall } = await import('../../shared/services/calls.ts');
    const { searchNumbers } = await import('../../shared/telephony/number-marketplace.ts');
    const { errorToResult } = await import('../../shared/http/errors.ts');

    const placement = await placeCall(org.organizationId, agent.public_id, {
      phone_number: daytimeNumber(1),
      initial_context: {},
    }).catch((error: unknown) => errorToResult(error));
    expect(placement).toMatchObject({ status: 503 });
    const { detail } = (placement as { body: { detail: string } }).body;
    expect(detail).toMatch(problem);
    expect(detail).toContain(secretsManager.arns[name]);
    expect(detail).toMatch(/PUT \/telephony-configs/);
    const search = await searchNumbers('GB').catch((error: unknown) => errorToResult(error));
    expect(search).toMatchObject({ status: 503 });

    const runs = await api.request('GET', `/agents/${agent.public_id}/conversations`, { key: org.key });
    expect(runs.body.items).toEqual([]);
  });
});
