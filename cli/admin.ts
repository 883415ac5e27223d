/**
 * Operator CLI for what the dashboard will do: organizations and API keys.
 *
 *   npm run admin -- org create --name NAME [--max-concurrent-calls N]
 *   npm run admin -- key create --org ID
 *   npm run admin -- key revoke KEY_ID
 *   npm run admin -- key list --org ID
 *   npm run admin -- org suspend|resume --org ID
 *
 * Target: the deployed stack when TABLE_NAME is set (with REST_API_ID, API_STAGE_NAME and
 * USAGE_PLAN_ID from the stack outputs, the usual AWS credentials and region); otherwise the
 * running local stack, found through the file `npm start` writes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { LOCAL_STACK_ENV_FILE } from '../local/paths.ts';

const USAGE = `Usage:
  npm run admin -- org create --name NAME [--max-concurrent-calls N]
  npm run admin -- org suspend --org ID          (its keys are refused at once)
  npm run admin -- org resume --org ID
  npm run admin -- org usage-plan --org ID       (per-organization throttling for an organization created before it)
  npm run admin -- org plan --org ID --plan free|paid
  npm run admin -- balance add --org ID --usd AMOUNT
  npm run admin -- key create --org ID
  npm run admin -- key revoke KEY_ID
  npm run admin -- key list --org ID
  npm run admin -- number approve NUMBER_ID --org ID
  npm run admin -- number reject NUMBER_ID --org ID [--reason TEXT]`;

class UsageError extends Error {}

function useTarget(): void {
  if (process.env.TABLE_NAME) return;
  if (!existsSync(LOCAL_STACK_ENV_FILE)) {
    throw new UsageError('No target: start the local stack with `npm start`, or set TABLE_NAME (and AWS credentials) for a deployed stack.');
  }
  Object.assign(process.env, JSON.parse(readFileSync(LOCAL_STACK_ENV_FILE, 'utf8')) as Record<string, string>);
}

function positiveInt(value: string | undefined, flag: string): number {
  const parsed = Number(value);
  if (!value || !Number.isInteger(parsed) || parsed < 1) throw new UsageError(`${flag} must be a positive integer`);
  return parsed;
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      org: { type: 'string' },
      'max-concurrent-calls': { type: 'string' },
      plan: { type: 'string' },
      usd: { type: 'string' },
      reason: { type: 'string' },
    },
  });
  const [noun, verb, argument] = positionals;
  useTarget();
  // Imported after the target is set: the services read TABLE_NAME and endpoints on first use.
  const organizations = await import('../shared/services/organizations.ts');

  switch (`${noun} ${verb}`) {
    case 'org create': {
      if (!values.name) throw new UsageError('--name is required');
      const maxConcurrentCalls =
        values['max-concurrent-calls'] === undefined ? undefined : positiveInt(values['max-concurrent-calls'], '--max-concurrent-calls');
      const { organization, apiKey } = await organizations.createOrganization({ name: values.name, maxConcurrentCalls });
      console.log(`Organization id: ${organization.id}`);
      console.log(`API key: ${apiKey.key}`);
      console.log(`Key id: ${apiKey.id} (the key is shown only once)`);
      return;
    }
    case 'key create': {
      const apiKey = await organizations.createApiKey(positiveInt(values.org, '--org'));
      console.log(`API key: ${apiKey.key}`);
      console.log(`Key id: ${apiKey.id} (the key is shown only once)`);
      return;
    }
    case 'key revoke': {
      if (!argument) throw new UsageError('KEY_ID is required');
      await organizations.revokeApiKey(argument);
      console.log(`Revoked ${argument}`);
      return;
    }
    case 'key list': {
      const keys = await organizations.listApiKeys(positiveInt(values.org, '--org'));
      for (const key of keys) console.log(`${key.id}\tcreated ${key.createdAt}\t${key.revokedAt ? `revoked ${key.revokedAt}` : 'active'}`);
      if (keys.length === 0) console.log('No keys');
      return;
    }
    case 'org suspend':
    case 'org resume': {
      const organizationId = positiveInt(values.org, '--org');
      await organizations.setOrganizationSuspended(organizationId, verb === 'suspend');
      console.log(`Organization ${organizationId} is ${verb === 'suspend' ? 'suspended: its keys are refused' : 'active again'}`);
      return;
    }
    case 'org usage-plan': {
      const organizationId = positiveInt(values.org, '--org');
      await organizations.ensureUsagePlanKey(organizationId);
      console.log(`Organization ${organizationId} has its key in the usage plan`);
      return;
    }
    case 'org plan': {
      if (values.plan !== 'free' && values.plan !== 'paid') throw new UsageError('--plan must be free or paid');
      const { setPlan } = await import('../shared/repositories/organizations.ts');
      await setPlan(positiveInt(values.org, '--org'), values.plan);
      console.log(`Organization ${values.org} is on the ${values.plan} plan`);
      return;
    }
    case 'balance add': {
      const usd = Number(values.usd);
      if (!values.usd || !Number.isFinite(usd) || usd === 0) throw new UsageError('--usd must be a non-zero amount');
      const { addBalance } = await import('../shared/repositories/organizations.ts');
      console.log(`Balance: ${(await addBalance(positiveInt(values.org, '--org'), usd)).toFixed(2)} USD`);
      return;
    }
    case 'number approve':
    case 'number reject': {
      const { reviewNumber } = await import('../shared/services/numbers.ts');
      const number = await reviewNumber(positiveInt(values.org, '--org'), positiveInt(argument, 'NUMBER_ID'), verb === 'approve' ? 'approve' : 'reject', values.reason);
      console.log(`Number ${number.id} (${number.phone_number}) is ${number.status}`);
      return;
    }
    default:
      throw new UsageError(`Unknown command '${positionals.join(' ')}'`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) console.error(`${error.message}\n\n${USAGE}`);
  else console.error(error instanceof Error ? error.message : error);
  process.exit(error instanceof UsageError ? 2 : 1);
});
