/**
 * One test run: its progress while it runs, then each case's verdict and transcript with the reasons
 * in place and each caller turn's response time beside it.
 */
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useEffect } from 'preact/hooks';
import { answer, type Schemas, useApi } from '../lib/api.ts';
import { href } from '../lib/route.ts';
import { ErrorLine } from '../lib/ui.tsx';
import { latencyByLine, placeResults, type Result } from './placement.ts';

type Attempt = Schemas['TestAttempt'];

function Verdicts({ results }: { results: Result[] }) {
  return (
    <ul class="verdicts">
      {results.map((result) => (
        <li key={result.index} class={result.passed ? 'passed' : 'failed'}>
          {result.passed ? '✓ Passed' : '✗ Failed'} ({result.type.replace('_', ' ')}): {result.reason}
        </li>
      ))}
    </ul>
  );
}

function AttemptView({
  agentId,
  attempt,
  expectations,
}: {
  agentId: string;
  attempt: Attempt;
  expectations: Schemas['TestCase']['expectations'];
}) {
  const { byLine, overall } = placeResults(attempt.transcript, expectations, attempt.expectations);
  const latencies = latencyByLine(attempt.transcript, attempt.turn_latencies_ms);
  return (
    <div>
      {attempt.error && <p role="status">Error: {attempt.error}</p>}
      <ol aria-label={`Transcript of attempt ${attempt.attempt}`}>
        {attempt.transcript.map((line, i) => (
          <li key={i}>
            <strong>{line.role === 'user' ? 'Caller' : 'Agent'}:</strong> {line.text}
            {latencies.has(i) && (
              <span class="turn-latency">
                {' '}
                ({latencies.get(i) === null ? 'not answered' : `answered in ${latencies.get(i)} ms`})
              </span>
            )}
            {byLine.has(i) && <Verdicts results={byLine.get(i)!} />}
          </li>
        ))}
      </ol>
      {overall.length > 0 && (
        <>
          <p>About the whole conversation:</p>
          <Verdicts results={overall} />
        </>
      )}
      <p>
        {attempt.latency_ms !== null && <>Median response {attempt.latency_ms} ms · </>}${attempt.cost_usd.toFixed(4)}{' '}
        {attempt.conversation_id !== null && (
          <>
            · <a href={href('calls', agentId, attempt.conversation_id)}>The conversation</a>
          </>
        )}
      </p>
    </div>
  );
}

export function RunResults({ agentId, testRunId }: { agentId: string; testRunId: number }) {
  const api = useApi();
  const run = useQuery({
    queryKey: ['agent-tests', agentId, 'runs', testRunId],
    queryFn: () =>
      answer(
        api.GET('/agents/{agent_id}/test-runs/{test_run_id}', {
          params: { path: { agent_id: agentId, test_run_id: testRunId } },
        }),
      ),
    refetchInterval: (query) => (query.state.data?.status === 'running' ? 1000 : false),
  });
  const cases = useQuery({
    queryKey: ['agent-tests', agentId, 'cases'],
    queryFn: () =>
      answer(api.GET('/agents/{agent_id}/tests', { params: { path: { agent_id: agentId }, query: { limit: 100 } } })),
  });
  const client = useQueryClient();
  const status = run.data?.status;
  // The list of runs shows this one's status too: read again once it has ended.
  useEffect(() => {
    if (status && status !== 'running')
      void client.invalidateQueries({ queryKey: ['agent-tests', agentId, 'runs'], exact: true });
  }, [status, client, agentId]);
  if (!run.data) return <ErrorLine error={run.error ?? new Error('Loading…')} />;
  const { summary } = run.data;
  const done = summary.cases - summary.pending;
  const expectationsOf = (testId: string) => cases.data?.items.find((item) => item.id === testId)?.expectations ?? [];
  return (
    <section aria-labelledby="results-title">
      <h3 id="results-title">
        Test run {run.data.id} of version {run.data.definition_id}: {run.data.status}
      </h3>
      <label for="test-progress">
        {done} of {summary.cases} cases done
      </label>
      <progress id="test-progress" max={summary.cases} value={done} />
      <p role="status">
        {summary.passed} passed, {summary.failed} failed, {summary.errors} errors
        {summary.cancelled ? `, ${summary.cancelled} cancelled` : ''} · ${summary.cost_usd.toFixed(4)}
      </p>
      {run.data.cases.map((result) => (
        <article key={result.test_id} aria-label={`Case ${result.name}`}>
          <h4>
            {result.name}: {result.verdict}
            {result.attempts.length > 1 && ` (${result.passed_attempts} of ${result.attempts.length} attempts passed)`}
          </h4>
          {result.attempts.map((attempt) => (
            <AttemptView
              key={attempt.attempt}
              agentId={agentId}
              attempt={attempt}
              expectations={expectationsOf(result.test_id)}
            />
          ))}
        </article>
      ))}
    </section>
  );
}
