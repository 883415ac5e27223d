/**
 * The version history of an agent's definition: each version with its status and note; what
 * changed between it and the current version, in words; opening it in the editor; publishing it
 * (for an earlier version, a rollback).
 */
import { useQuery } from '@tanstack/preact-query';
import { useMutation } from '../lib/mutation.ts';
import { useState } from 'preact/hooks';
import { answer, queryClient, type Schemas, useApi } from '../lib/api.ts';
import { ErrorLine, Pager, Table, when } from '../lib/ui.tsx';
import { definitionChanges } from './diff.ts';

type Agent = Schemas['Agent'];
type Definition = Schemas['Definition'];
const PAGE_SIZE = 10;

function Changes({ agent, definitionId }: { agent: Agent; definitionId: number }) {
  const api = useApi();
  const version = useQuery({
    queryKey: ['definition', agent.public_id, definitionId],
    queryFn: () =>
      answer(
        api.GET('/agents/{agent_id}/definitions/{definition_id}', {
          params: { path: { agent_id: agent.public_id, definition_id: definitionId } },
        }),
      ),
  });
  if (!version.data) return <ErrorLine error={version.error ?? new Error('Loading…')} />;
  const lines = definitionChanges(
    version.data.workflow_definition as Record<string, unknown>,
    agent.workflow_definition as Record<string, unknown>,
  );
  return (
    <section aria-labelledby="flow-changes-title" class="flow-changes">
      <h4 id="flow-changes-title">
        From version #{definitionId} to the current version (#{agent.current_definition_id})
      </h4>
      {lines.length ? (
        <ul aria-labelledby="flow-changes-title">
          {lines.map((line, index) => (
            <li key={index}>{line}</li>
          ))}
        </ul>
      ) : (
        <p>They are the same.</p>
      )}
    </section>
  );
}

export function Versions({ agent, onOpen }: { agent: Agent; onOpen: (definition: Definition) => void }) {
  const api = useApi();
  const path = { agent_id: agent.public_id };
  const [page, setPage] = useState(1);
  const [compared, setCompared] = useState<number | null>(null);
  const versions = useQuery({
    queryKey: ['definitions', agent.public_id, page],
    queryFn: () =>
      answer(api.GET('/agents/{agent_id}/definitions', { params: { path, query: { page, limit: PAGE_SIZE } } })),
  });
  const open = useMutation({
    mutationFn: (definitionId: number) =>
      answer(
        api.GET('/agents/{agent_id}/definitions/{definition_id}', {
          params: { path: { ...path, definition_id: definitionId } },
        }),
      ),
    onSuccess: onOpen,
  });
  const publish = useMutation({
    mutationFn: (definitionId: number) =>
      answer(
        api.POST('/agents/{agent_id}/definitions/{definition_id}/publish', {
          params: { path: { ...path, definition_id: definitionId } },
        }),
      ),
    meta: { touches: ['definitions', agent.public_id] },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['agent', agent.public_id] }),
  });
  return (
    <section aria-labelledby="flow-versions-title">
      <h3 id="flow-versions-title">Versions</h3>
      <ErrorLine error={versions.error ?? open.error ?? publish.error} />
      <Table label="Versions of the definition" columns={['Version', 'Status', 'Note', 'Saved', 'Published', '']}>
        {versions.data?.items.map((version) => (
          <tr key={version.id}>
            <td>#{version.id}</td>
            <td>{version.status}</td>
            <td>{version.note ?? ''}</td>
            <td>{when(version.created_at)}</td>
            <td>{when(version.published_at)}</td>
            <td class="actions">
              {version.status !== 'current' && (
                <>
                  <button type="button" class="secondary" onClick={() => setCompared(version.id)}>
                    Compare #{version.id}
                  </button>
                  <button type="button" disabled={publish.isPending} onClick={() => publish.mutate(version.id)}>
                    {version.status === 'draft' ? `Publish #${version.id}` : `Roll back to #${version.id}`}
                  </button>
                </>
              )}
              <button type="button" class="secondary" onClick={() => open.mutate(version.id)}>
                Open #{version.id}
              </button>
            </td>
          </tr>
        ))}
      </Table>
      <Pager page={page} totalPages={versions.data?.total_pages ?? 1} onPage={setPage} label="versions" />
      <p role="status">{publish.isSuccess ? `Version #${publish.variables} is now the current one.` : ''}</p>
      {compared !== null && <Changes key={compared} agent={agent} definitionId={compared} />}
    </section>
  );
}
