/**
 * Operator CLI for what the dashboard will do: organizations, API keys, plans, balances and the
 * regulatory review of numbers. `npm run admin -- --help` lists the commands; `--help` after a
 * command explains it. The README's "Operator CLI" section lists the same commands (a test
 * compares them).
 *
 * Target: the deployed stack when TABLE_NAME is set (with REST_API_ID, API_STAGE_NAME and
 * USAGE_PLAN_ID from the stack outputs, the usual AWS credentials and region); otherwise the
 * running local stack, found through the file `npm start` writes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LOCAL_STACK_ENV_FILE } from '../local/paths.ts';
import { parseApiKey } from '../shared/domain/api-key-format.ts';

/** Every command: its synopsis (after `npm run admin --`) and what it does. */
export const COMMANDS: Record<string, { synopsis: string; help: string }> = {
  'org create': {
    synopsis: 'org create --name NAME [--max-concurrent-calls N]',
    help: 'Creates an organization (N outbound channels, default 10) and its first API key; prints the organization id, the key (shown once) and the key id.',
  },
  'org plan': {
    synopsis: 'org plan --org ID --plan free|paid',
    help: 'Sets the plan of organization ID (the paid plan shows the phone-number setup step).',
  },
  'balance add': {
    synopsis: 'balance add --org ID --usd AMOUNT',
    help: 'Adds AMOUNT US dollars to the balance of organization ID (negative to deduct); prints the new balance.',
  },
  'org suspend': {
    synopsis: 'org suspend --org ID',
    help: "Suspends organization ID: its keys are refused (403) at once (the stage's authorizer cache is flushed).",
  },
  'org resume': {
    synopsis: 'org resume --org ID',
    help: 'Resumes a suspended organization: its keys work again at once.',
  },
  'org usage-plan': {
    synopsis: 'org usage-plan --org ID',
    help: 'Gives organization ID its API Gateway key in the usage plan (per-organization throttling); for an organization created before it.',
  },
  'key create': {
    synopsis: 'key create --org ID',
    help: 'Creates another API key of organization ID; prints the key (shown once) and its id.',
  },
  'key revoke': {
    synopsis: 'key revoke KEY_ID',
    help: 'Revokes a key. KEY_ID is the key id printed when the key was made (`key_…`, also in `key list`); the whole key (`vap_…`) is accepted too.',
  },
  'key list': {
    synopsis: 'key list --org ID',
    help: 'Lists the keys of organization ID: id, creation time, active or revoked (never the keys themselves).',
  },
  'number approve': {
    synopsis: 'number approve NUMBER_ID --org ID',
    help: "Overrides the platform's wait for the provider's news of a pending number's review (Polish mobile): once the provider has approved it, the number is bought, becomes active and carries traffic; a review the provider has not approved is refused. Logged as an override.",
  },
  'number reject': {
    synopsis: 'number reject NUMBER_ID --org ID [--reason TEXT]',
    help: 'Rejects the regulatory review of a pending number: it becomes rejected, the first month is refunded and its document erased. Logged as an override.',
  },
  'tools encrypt-headers': {
    synopsis: 'tools encrypt-headers',
    help: 'Encrypts the headers of agent tools stored before tool headers were encrypted at rest (KMS on AWS: set KMS_KEY_ID to the EncryptionKeyArn output). Idempotent and safe beside traffic: a tool is rewritten only while it still holds the plaintext read; prints how many were found, encrypted and skipped.',
  },
  'tasks backfill-due': {
    synopsis: 'tasks backfill-due [--due-after ISO_TIME]',
    help: "Puts the memories stored before the due index into it: each open task gets its due entry, so it comes due (task.due, and its call where the agent allows it) at the schedule's next run on or after its due_at; with --due-after, a task due before that time is indexed but not announced. Idempotent and safe beside traffic: each memory is marked in a transaction that holds only while it is as read; prints how many were found, armed, indexed only and skipped.",
  },
};

const usage = () =>
  `Usage: npm run admin -- COMMAND [options]   (--help after a command explains it)\n\n${Object.values(COMMANDS)
    .map((command) => `  ${command.synopsis}`)
    .join('\n')}`;
const commandHelp = (name: string) => `Usage: npm run admin -- ${COMMANDS[name]!.synopsis}\n\n${COMMANDS[name]!.help}`;

class UsageError extends Error {}

/** A key id (`key_…`) as given, or the id of a whole key (`vap_…`). */
export function keyIdOf(argument: string): string {
  return parseApiKey(argument)?.keyId ?? argument;
}

function useTarget(): void {
  if (process.env.TABLE_NAME) return;
  if (!existsSync(LOCAL_STACK_ENV_FILE)) {
    throw new UsageError(
      'No target: start the local stack with `npm start`, or set TABLE_NAME (and AWS credentials) for a deployed stack.',
    );
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
      'due-after': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [noun, verb, argument] = positionals;
  const command = `${noun} ${verb}`;
  if (noun === undefined || noun === 'help' || (values.help && !Object.hasOwn(COMMANDS, command))) {
    console.log(usage());
    return;
  }
  if (values.help) {
    console.log(commandHelp(command));
    return;
  }
  useTarget();
  // Imported after the target is set: the services read TABLE_NAME and endpoints on first use.
  const organizations = await import('../shared/services/organizations.ts');

  switch (command) {
    case 'org create': {
      if (!values.name) throw new UsageError('--name is required');
      const maxConcurrentCalls =
        values['max-concurrent-calls'] === undefined
          ? undefined
          : positiveInt(values['max-concurrent-calls'], '--max-concurrent-calls');
      const { organization, apiKey } = await organizations.createOrganization({
        name: values.name,
        maxConcurrentCalls,
      });
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
      await organizations.revokeApiKey(keyIdOf(argument));
      console.log(`Revoked ${keyIdOf(argument)}`);
      return;
    }
    case 'key list': {
      const keys = await organizations.listApiKeys(positiveInt(values.org, '--org'));
      for (const key of keys)
        console.log(`${key.id}\tcreated ${key.createdAt}\t${key.revokedAt ? `revoked ${key.revokedAt}` : 'active'}`);
      if (keys.length === 0) console.log('No keys');
      return;
    }
    case 'org suspend':
    case 'org resume': {
      const organizationId = positiveInt(values.org, '--org');
      await organizations.setOrganizationSuspended(organizationId, verb === 'suspend');
      console.log(
        `Organization ${organizationId} is ${verb === 'suspend' ? 'suspended: its keys are refused' : 'active again'}`,
      );
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
      const number = await reviewNumber(
        positiveInt(values.org, '--org'),
        positiveInt(argument, 'NUMBER_ID'),
        verb === 'approve' ? 'approve' : 'reject',
        values.reason,
      );
      console.log(`Number ${number.id} (${number.phone_number}) is ${number.status}`);
      return;
    }
    case 'tools encrypt-headers': {
      const { encryptPlaintextToolHeaders } = await import('../shared/services/tool-calls.ts');
      const { found, encrypted, skipped } = await encryptPlaintextToolHeaders();
      console.log(
        `Tools with plaintext headers: ${found}; encrypted: ${encrypted}; skipped (changed meanwhile): ${skipped}`,
      );
      return;
    }
    case 'tasks backfill-due': {
      const dueAfter = values['due-after'] === undefined ? undefined : new Date(values['due-after']);
      if (dueAfter && Number.isNaN(dueAfter.getTime()))
        throw new UsageError('--due-after must be an ISO 8601 time, e.g. 2026-11-01T00:00:00Z');
      const { backfillDueTasks } = await import('../shared/services/memories.ts');
      const { found, armed, indexed, skipped } = await backfillDueTasks({ dueAfter });
      console.log(
        `Memories stored before the due index: ${found}; tasks armed: ${armed}; indexed only: ${indexed}; skipped (changed meanwhile): ${skipped}`,
      );
      return;
    }
    default:
      throw new UsageError(`Unknown command '${positionals.join(' ')}'`);
  }
}

// Run as a program (not when a test imports COMMANDS).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    if (error instanceof UsageError) console.error(`${error.message}\n\n${usage()}`);
    else console.error(error instanceof Error ? error.message : error);
    process.exit(error instanceof UsageError ? 2 : 1);
  });
}
