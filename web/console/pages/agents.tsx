/**
 * Agents: the list (status filter, pages) with the ways to make a new one (blank, from a template,
 * or from a call script whose analysis is shown for review first), and one agent's page: a talk or
 * chat with it in place, a test call, its response latency over time, its definition and
 * settings, archive, its knowledge base, HTTP tools and memories (each a component of
 * ../agents/).
 */
import { useQuery } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { AgentSettings } from '../agents/agent-settings.tsx';
import { FromScript } from '../agents/from-script.tsx';
import { Knowledge } from '../agents/knowledge.tsx';
import { Memories } from '../agents/memories.tsx';
import { FromTemplate, NewAgent } from '../agents/new-agent.tsx';
import { TestCall } from '../agents/test-call.tsx';
import { Tools } from '../agents/tools.tsx';
import { AgentLatency } from '../latency/agent-latency.tsx';
import { answer, answerWithPages, useApi } from '../lib/api.ts';
import { href } from '../lib/route.ts';
import { ErrorLine, Pager, Table, when } from '../lib/ui.tsx';
import { TalkPanel } from '../talk/TalkPanel.tsx';

const PAGE_SIZE = 20;

export function AgentsPage() {
  const api = useApi();
  const [status, setStatus] = useState('active');
  const [page, setPage] = useState(1);
  const agents = useQuery({
    queryKey: ['agents', status, page],
    queryFn: () => answerWithPages(api.GET('/agents', { params: { query: { status, page, limit: PAGE_SIZE } } })),
  });
  return (
    <section aria-labelledby="agents-title">
      <h2 id="agents-title">Agents</h2>
      <ErrorLine error={agents.error} />
      <label for="agent-status">Status</label>
      <select
        id="agent-status"
        value={status}
        onChange={(e) => {
          setStatus(e.currentTarget.value);
          setPage(1);
        }}
      >
        <option value="active">Active</option>
        <option value="archived">Archived</option>
        <option value="active,archived">All</option>
      </select>
      <Table label="Agents" columns={['Name', 'Status', 'Runs', 'Updated']}>
        {agents.data?.items.map((agent) => (
          <tr key={agent.public_id}>
            <td>
              <a href={href('agents', agent.public_id)}>{agent.name}</a>
            </td>
            <td>{agent.status}</td>
            <td>{agent.total_runs}</td>
            <td>{when(agent.updated_at)}</td>
          </tr>
        ))}
      </Table>
      <Pager page={page} totalPages={agents.data?.totalPages ?? 1} onPage={setPage} label="agents" />
      <NewAgent />
      <FromTemplate />
      <FromScript />
    </section>
  );
}

export function AgentPage({ agentId }: { agentId: string }) {
  const api = useApi();
  const agent = useQuery({
    queryKey: ['agent', agentId],
    queryFn: () => answer(api.GET('/agents/{agent_id}', { params: { path: { agent_id: agentId } } })),
  });
  const [talking, setTalking] = useState(false);
  if (!agent.data) return <ErrorLine error={agent.error ?? new Error('Loading…')} />;
  return (
    <section aria-labelledby="agent-title">
      <p>
        <a href={href('agents')}>All agents</a>
      </p>
      <h2 id="agent-title">{agent.data.name}</h2>
      <p>
        <code>{agent.data.public_id}</code> · {agent.data.status} · {agent.data.total_runs} runs ·{' '}
        <a href={href('calls', agent.data.public_id)}>Its calls</a> ·{' '}
        <a href={href('agents', agent.data.public_id, 'flow')}>Conversation flow and versions</a> ·{' '}
        <a href={href('agents', agent.data.public_id, 'tests')}>Tests</a>
      </p>
      <button type="button" aria-expanded={talking} onClick={() => setTalking(!talking)}>
        Talk or chat
      </button>
      {talking && <TalkPanel agentId={agent.data.public_id} title={`Talk to ${agent.data.name}`} />}
      <TestCall agent={agent.data} />
      <AgentLatency agentId={agent.data.id} />
      <AgentSettings key={agent.data.public_id} agent={agent.data} />
      <Knowledge agentId={agentId} />
      <Tools agentId={agentId} />
      <Memories agentId={agentId} />
    </section>
  );
}
