/**
 * An agent's Tests tab (`#/agents/<id>/tests`): its test cases (a form to add or edit one, no JSON), a run
 * of them against the published version or a draft with its progress, and each case's result: the
 * transcript with every expectation's verdict and reason next to the line it is about.
 */
import { useQuery } from '@tanstack/preact-query';
import { useMutation } from '../lib/mutation.ts';
import { useState } from 'preact/hooks';
import { answer, useApi } from '../lib/api.ts';
import { href } from '../lib/route.ts';
import { ErrorLine, onSubmitRun, Table, when } from '../lib/ui.tsx';
import { CaseForm } from './case-form.tsx';
import { RunResults } from './run-results.tsx';

export function AgentTestsPage({ agentId }: { agentId: string }) {
  const api = useApi();
  const path = { agent_id: agentId };
  const agent = useQuery({
    queryKey: ['agent', agentId],
    queryFn: () => answer(api.GET('/agents/{agent_id}', { params: { path } })),
  });
  const cases = useQuery({
    queryKey: ['agent-tests', agentId, 'cases'],
    queryFn: () => answer(api.GET('/agents/{agent_id}/tests', { params: { path, query: { limit: 100 } } })),
  });
  const versions = useQuery({
    queryKey: ['definitions', agentId],
    queryFn: () => answer(api.GET('/agents/{agent_id}/definitions', { params: { path } })),
  });
  const runs = useQuery({
    queryKey: ['agent-tests', agentId, 'runs'],
    queryFn: () => answer(api.GET('/agents/{agent_id}/test-runs', { params: { path, query: { limit: 10 } } })),
  });
  const [version, setVersion] = useState('');
  const [shown, setShown] = useState<number | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const edited = cases.data?.items.find((item) => item.id === editing);
  const start = useMutation({
    mutationFn: () =>
      answer(
        api.POST('/agents/{agent_id}/test-runs', {
          params: { path },
          // Parallelism is bounded by half the organization's channels (live calls first).
          body: { repeat: 1, parallelism: 5, ...(version ? { definition_id: Number(version) } : {}) },
        }),
      ),
    meta: { touches: ['agent-tests', agentId, 'runs'] },
    onSuccess: (run) => setShown(run.id),
  });
  const remove = useMutation({
    mutationFn: (testId: string) =>
      answer(api.DELETE('/agents/{agent_id}/tests/{test_id}', { params: { path: { ...path, test_id: testId } } })),
    meta: { touches: ['agent-tests', agentId, 'cases'] },
  });
  const drafts = versions.data?.items.filter((item) => item.status === 'draft') ?? [];
  const name = agent.data?.name ?? agentId;
  return (
    <section aria-labelledby="tests-title">
      <p>
        <a href={href('agents', agentId)}>Back to {name}</a>
      </p>
      <h2 id="tests-title">Tests of {name}</h2>
      <ErrorLine error={agent.error ?? cases.error ?? remove.error} />
      <Table label="Test cases" columns={['Name', 'Caller', 'Expectations', 'Tags', '']}>
        {cases.data?.items.map((item) => (
          <tr key={item.id}>
            <td>{item.name}</td>
            <td>
              {item.caller.persona} — {item.caller.goal}
            </td>
            <td>{item.expectations.length}</td>
            <td>{item.tags.join(', ')}</td>
            <td>
              <button
                type="button"
                class="secondary"
                aria-pressed={editing === item.id}
                onClick={() => setEditing(item.id)}
              >
                Edit {item.name}
              </button>{' '}
              <button type="button" class="secondary" onClick={() => remove.mutate(item.id)}>
                Delete {item.name}
              </button>
            </td>
          </tr>
        ))}
      </Table>
      <form onSubmit={onSubmitRun(() => start.mutate())} aria-labelledby="run-title">
        <h3 id="run-title">Run the tests</h3>
        <label for="test-version">Against</label>
        <select id="test-version" value={version} onChange={(e) => setVersion(e.currentTarget.value)}>
          <option value="">The published version</option>
          {drafts.map((draft) => (
            <option key={draft.id} value={String(draft.id)}>
              Draft {draft.id}
              {draft.note ? `: ${draft.note}` : ''} ({when(draft.created_at)})
            </option>
          ))}
        </select>
        <ErrorLine error={start.error} />
        <button type="submit" disabled={start.isPending || !cases.data?.items.length}>
          Run all tests
        </button>
      </form>
      {runs.data?.items.length ? (
        <ul aria-label="Test runs">
          {runs.data.items.map((run) => (
            <li key={run.id}>
              <button type="button" class="secondary" aria-pressed={shown === run.id} onClick={() => setShown(run.id)}>
                Test run {run.id}
              </button>{' '}
              version {run.definition_id} · {run.status} · {run.summary.passed} passed, {run.summary.failed} failed of{' '}
              {run.summary.cases} · {when(run.created_at)}
            </li>
          ))}
        </ul>
      ) : null}
      {shown !== null && <RunResults key={shown} agentId={agentId} testRunId={shown} />}
      {edited ? (
        <CaseForm
          key={edited.id}
          agentId={agentId}
          existing={edited}
          onSaved={() => setEditing(null)}
          onCancel={() => setEditing(null)}
        />
      ) : (
        <CaseForm agentId={agentId} />
      )}
    </section>
  );
}
