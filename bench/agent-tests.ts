/**
 * An agent test run on the local stack: CASES cases of TURNS caller turns each (scripted), each
 * judged (a phrase and a criterion the model grades), at the run's parallelism (half of the
 * organization's channels), the fakes at their default delays. MODE `text` (the default): chat
 * conversations; `voice`: voice cases, the caller's side of the line in the runner at real time
 * (the local stack's line pace is 1, as on AWS) through the local ElevenLabs and Deepgram. Prints
 * one JSON line: the wall time from the run's creation to its completion, per case, cases per
 * minute, and a judged case's model tokens (median over the attempts: the judge's, the caller
 * being scripted; the local model counts a token per 4 characters, as OpenAI's rule of thumb) and
 * what they cost on the platform's model.
 *
 *   tsx bench/agent-tests.ts [cases] [turns] [channels] [text|voice]
 */
import { startLocalStack } from '../local/stack.ts';
import { median, modelTokensUsd } from '../shared/domain/agent-test-runs.ts';

const [cases = 50, turns = 6, channels = 20] = process.argv.slice(2, 5).map(Number);
const mode = process.argv[5] ?? 'text';
if (mode !== 'text' && mode !== 'voice') throw new Error(`The mode is text or voice, not ${mode}`);

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
      mode,
      caller: {
        persona: `Caller ${i}`,
        goal: 'Book a visit',
        script: steps.map((_, t) => `Answer ${t + 1} of case ${i}`),
      },
      max_turns: turns,
      timeout_seconds: 300,
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
  const attempts = result.cases.flatMap((each: { attempts: unknown[] }) => each.attempts) as {
    model_tokens: { input_tokens: number; output_tokens: number };
  }[];
  const judgedTokens = {
    input_tokens: median(attempts.map((attempt) => attempt.model_tokens.input_tokens)) ?? 0,
    output_tokens: median(attempts.map((attempt) => attempt.model_tokens.output_tokens)) ?? 0,
  };
  console.log(
    JSON.stringify({
      mode,
      cases,
      turns,
      channels,
      parallelism: run.parallelism,
      seconds: Math.round(seconds * 10) / 10,
      secondsPerCase: Math.round((seconds / cases) * 100) / 100,
      casesPerMinute: Math.round((cases / seconds) * 60 * 10) / 10,
      judgedCaseTokens: judgedTokens,
      judgedCaseModelUsd: modelTokensUsd(judgedTokens, 'platform'),
      summary: result.summary,
    }),
  );
} finally {
  await stack.stop();
}
