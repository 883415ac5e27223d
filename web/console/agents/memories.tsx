/** What an agent remembers of its callers (topics, due dates), each of which can be forgotten. */
import { useQuery } from '@tanstack/preact-query';
import { useMutation } from '../lib/mutation.ts';
import { answer, useApi } from '../lib/api.ts';
import { ErrorLine, when } from '../lib/ui.tsx';

export function Memories({ agentId }: { agentId: string }) {
  const api = useApi();
  const path = { agent_id: agentId };
  const memories = useQuery({
    queryKey: ['memories', agentId],
    queryFn: () => answer(api.GET('/agents/{agent_id}/memories', { params: { path } })),
  });
  const remove = useMutation({
    mutationFn: (memoryId: string) =>
      answer(
        api.DELETE('/agents/{agent_id}/memories/{memory_id}', { params: { path: { ...path, memory_id: memoryId } } }),
      ),
    meta: { touches: ['memories', agentId] },
  });
  return (
    <section aria-labelledby="memories-title">
      <h3 id="memories-title">Memories</h3>
      <ErrorLine error={memories.error ?? remove.error} />
      <ul aria-label="Memories">
        {memories.data?.items.map((memory) => (
          <li key={memory.id}>
            <strong>{memory.topic}</strong>: {memory.content} {memory.due_at ? `(due ${when(memory.due_at)})` : ''}
            {memory.done ? ' — done' : ''}{' '}
            <button type="button" class="secondary" onClick={() => remove.mutate(memory.id)}>
              Forget {memory.topic}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
