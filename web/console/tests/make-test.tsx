/**
 * "Make a test from this call" on a call's page: the API drafts a case from the ended call (its
 * caller's turns as the script, its outcome as expectations), shown in the case form to edit and save.
 */
import { useMutation } from '../lib/mutation.ts';
import { useState } from 'preact/hooks';
import { answer, useApi } from '../lib/api.ts';
import { href } from '../lib/route.ts';
import { ErrorLine } from '../lib/ui.tsx';
import { CaseForm } from './case-form.tsx';

export function MakeTest({ agentId, runId }: { agentId: string; runId: number }) {
  const api = useApi();
  const [saved, setSaved] = useState(false);
  const draft = useMutation({
    mutationFn: () =>
      answer(
        api.GET('/agents/{agent_id}/conversations/{conversation_id}/test-draft', {
          params: { path: { agent_id: agentId, conversation_id: runId } },
        }),
      ),
    onSuccess: () => setSaved(false),
  });
  return (
    <section aria-labelledby="make-test-title">
      <h3 id="make-test-title">A test from this call</h3>
      <button type="button" class="secondary" disabled={draft.isPending} onClick={() => draft.mutate()}>
        Make a test from this call
      </button>
      <ErrorLine error={draft.error} />
      {saved && (
        <p role="status">
          Saved. <a href={href('agents', agentId, 'tests')}>Open the agent's tests</a>
        </p>
      )}
      {draft.data && !saved && (
        <CaseForm key={draft.submittedAt} agentId={agentId} initial={draft.data} onSaved={() => setSaved(true)} />
      )}
    </section>
  );
}
