/**
 * Talk to an agent: pick one of the active agents and talk with the microphone or chat with it
 * (`#/talk/<agent>`); `#/talk/<agent>/<definition_id>` tries that version of its definition (a
 * draft) instead of the current one.
 */
import { useQuery } from '@tanstack/preact-query';
import { answer, useApi } from '../lib/api.ts';
import { href, navigate } from '../lib/route.ts';
import { ErrorLine } from '../lib/ui.tsx';
import { TalkPanel } from '../talk/TalkPanel.tsx';

export function TalkPage({ agentId, definitionId }: { agentId?: string; definitionId?: number }) {
  const api = useApi();
  const agents = useQuery({
    queryKey: ['agents', 'active', 'every'],
    queryFn: () => answer(api.GET('/agents', { params: { query: { status: 'active' } } })),
  });
  const selected = agentId ?? agents.data?.[0]?.public_id;
  const name = agents.data?.find((agent) => agent.public_id === selected)?.name;
  return (
    <section aria-labelledby="talk-title">
      <h2 id="talk-title">Talk to an agent</h2>
      <p>
        With the microphone or in a chat: each conversation is a run like a call, listed with the agent&apos;s calls.
      </p>
      <ErrorLine error={agents.error} />
      {agents.data?.length === 0 && (
        <p>
          No active agent yet: <a href={href('agents')}>create one</a>.
        </p>
      )}
      <label for="talk-agent">Agent</label>
      <select id="talk-agent" value={selected ?? ''} onChange={(e) => navigate('talk', e.currentTarget.value)}>
        {agents.data?.map((agent) => (
          <option key={agent.public_id} value={agent.public_id}>
            {agent.name} ({agent.public_id})
          </option>
        ))}
      </select>
      {selected && (
        <TalkPanel
          key={`${selected}/${definitionId ?? ''}`}
          agentId={selected}
          definitionId={definitionId}
          title={name ? `Talk to ${name}` : 'Talk to the agent'}
        />
      )}
    </section>
  );
}
