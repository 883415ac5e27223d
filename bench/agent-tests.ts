/**
 * An agent test run on the local stack: CASES text cases of TURNS caller turns each (scripted),
 * each a chat conversation through the media service with the local model fake at its default
 * delays, at the run's parallelism (half of the organization's channels). Prints one JSON line:
 * the wall time from the run's creation to its completion, and per case.
 *
 *   tsx bench/agent-tests.ts [cases] [turns] [channels]
 */
import { startLocalStack } from '../local/stack.ts';

const [cases = 50, turns = 6, channels = 20] = process.argv.slice(2).map(Number);

const stack = await startLocalStack({
  port: 0,
  logLevel: 'SILENT',
  usagePlan: { rateLimit: 1_000_000, burstLimit: 1_000_000 },
});
try {
  const { createOrganization } = await import('../shared/services/organizations.ts');
  const { apiKey } = await createOrganization({ name: 'Agent tests bench', maxConcurrentCalls: channels });
  const headers = { 'X-API-Key': apiKey.key, 'Content-Type': 'application/json' };
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a bench reads the answers it printed loosely
    const json = (await response.json()) as Record<string, any>;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const steps = Array.from({ length: turns }, (_, i) => `Step ${i + 1}: ask about topic ${i + 1}.`);
  const agent = await api('POST', '/agents', {
    name: 'Bench clinic',
    workflow_definition: { greeting: 'Hello, clinic.', steps },
  });
  for (let i = 0; i < cases; i += 1)
    await api('POST', `/agents/${agent.public_id}/tests`, {
      name: `Case ${i}`,
      caller: {
        persona: `Caller ${i}`,
        goal: 'Book a visit',
        script: steps.map((_, t) => `Answer ${t + 1} of case ${i}`),
      },
      max_turns: turns,
      expectations: [
        { type: 'phrase_said', phrase: 'Hello, clinic.' },
        { type: 'judged', criteria: 'The agent asks about the topic' },
      ],
    });
  const started = Date.now();
  const run = await api('POST', `/agents/${agent.public_id}/test-runs`, { parallelism: 20 });
  let result = run;
  while (result.status === 'running') {
    await new Promise((resolve) => setTimeout(resolve, 500));
    result = await api('GET', `/agents/${agent.public_id}/test-runs/${run.id}`);
  }
  const seconds = (Date.now() - started) / 1000;
  console.log(
    JSON.stringify({
      cases,
      turns,
      channels,
      parallelism: run.parallelism,
      seconds: Math.round(seconds * 10) / 10,
      secondsPerCase: Math.round((seconds / cases) * 100) / 100,
      summary: result.summary,
    }),
  );
} finally {
  await stack.stop();
}
