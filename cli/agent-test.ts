/**
 * Runs an agent's tests from a CI job, through the typed client:
 *
 *   npm run agent-test -- --agent agent_… --base-url https://…/api/v1 --api-key "$KEY" \
 *     [--version draft|current|<definition id>] [--tag smoke] [--repeat 2] [--parallelism 5] [--junit report.xml]
 *
 * Prints progress while the cases talk, then a summary table; writes JUnit XML when asked; exits 1
 * when a case did not pass, 2 on a usage or API error. The key may come from VAP_API_KEY.
 */
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createVoiceAgentClient, type VoiceAgentClient } from '../client/index.ts';
import { exitCode, junitXml, newlyFinished, summaryTable, type TestRun } from './agent-test-report.ts';

const USAGE =
  'Usage: npm run agent-test -- --agent <agent id> --base-url <…/api/v1> --api-key <key> [--version draft|current|<id>] [--tag <tag>] [--repeat <n>] [--parallelism <n>] [--junit <file>]';

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

/** `draft`: the newest draft; `current`: the published one; a number: that version. */
async function definitionId(api: VoiceAgentClient, agent: string, version: string): Promise<number | undefined> {
  if (version === 'current') return undefined;
  if (/^\d+$/.test(version)) return Number(version);
  if (version !== 'draft') fail(`--version is draft, current or a definition id, not ${version}`);
  for (let page = 1; ; page += 1) {
    const { data, error } = await api.GET('/agents/{agent_id}/definitions', {
      params: { path: { agent_id: agent }, query: { page, limit: 100 } },
    });
    if (error || !data) fail(`Could not list the versions: ${JSON.stringify(error)}`);
    const draft = data.items.find((item) => item.status === 'draft');
    if (draft) return draft.id;
    if (page >= data.total_pages) fail('The agent has no draft');
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      agent: { type: 'string' },
      'base-url': { type: 'string' },
      'api-key': { type: 'string' },
      version: { type: 'string', default: 'current' },
      tag: { type: 'string' },
      repeat: { type: 'string', default: '1' },
      parallelism: { type: 'string', default: '5' },
      junit: { type: 'string' },
      'poll-seconds': { type: 'string', default: '2' },
    },
  });
  const apiKey = values['api-key'] ?? process.env.VAP_API_KEY;
  if (!values.agent || !values['base-url'] || !apiKey) fail(USAGE);
  const api = createVoiceAgentClient({ baseUrl: values['base-url'], apiKey });
  const agent = values.agent;
  const definition = await definitionId(api, agent, values.version!);
  const started = await api.POST('/agents/{agent_id}/test-runs', {
    params: { path: { agent_id: agent } },
    body: {
      ...(definition === undefined ? {} : { definition_id: definition }),
      ...(values.tag ? { tag: values.tag } : {}),
      repeat: Number(values.repeat),
      parallelism: Number(values.parallelism),
    },
  });
  if (!started.data) fail(`The test run was refused (${started.response.status}): ${JSON.stringify(started.error)}`);
  process.stdout.write(
    `Test run ${started.data.id}: ${started.data.summary.cases} cases against version ${started.data.definition_id}\n`,
  );
  let run: TestRun = started.data;
  const reported = new Set<string>();
  while (run.status === 'running') {
    await sleep(Number(values['poll-seconds']) * 1000);
    const { data, error } = await api.GET('/agents/{agent_id}/test-runs/{test_run_id}', {
      params: { path: { agent_id: agent, test_run_id: run.id } },
    });
    if (!data) fail(`Could not read the test run: ${JSON.stringify(error)}`);
    run = data;
    for (const item of newlyFinished(run, reported)) process.stdout.write(`  ${item.verdict.padEnd(9)} ${item.name}\n`);
  }
  process.stdout.write(`\n${summaryTable(run)}\n`);
  if (values.junit) writeFileSync(values.junit, junitXml(run, `agent ${agent}`));
  process.exit(exitCode(run));
}

await main();
