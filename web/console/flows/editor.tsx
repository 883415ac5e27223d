/**
 * The flow editor, an agent's page of its own (`#/agents/<id>/flow`): the canvas, the outline and
 * the side panel, a toolbar to add and delete steps, saving as a draft (the API's 422 shown on the
 * steps and transitions it concerns), trying and publishing the draft, and the version history.
 */
import { useQuery } from '@tanstack/preact-query';
import { useMutation } from '../lib/mutation.ts';
import { useMemo, useState } from 'preact/hooks';
import { answer, ApiError, queryClient, type Schemas, useApi } from '../lib/api.ts';
import { detailOf } from '../lib/api.ts';
import { href, useLeaveGuard } from '../lib/route.ts';
import { ErrorLine, onSubmitRun } from '../lib/ui.tsx';
import { TextField } from './fields.tsx';
import { FlowGraph, type Selection } from './graph.tsx';
import { currentIssues, type FlowIssue, issuesOf, issuesOfEdge, issuesOfNode } from './issues.ts';
import * as model from './model.ts';
import { Outline } from './outline.tsx';
import { type AgentChoices, EdgePanel, NodePanel } from './panel.tsx';
import { TryIt } from './try-it.tsx';
import { Versions } from './versions.tsx';

type Agent = Schemas['Agent'];

/** The flow a definition is drawn as: itself, or the one-step flow a flat definition behaves as. */
const flowOf = (definition: Record<string, unknown>): model.EditedFlow =>
  model.editable(model.isFlow(definition) ? (definition as model.FlowDefinition) : model.flowFromFlat(definition));

export function FlowEditorPage({ agentId }: { agentId: string }) {
  const api = useApi();
  const agent = useQuery({
    queryKey: ['agent', agentId],
    queryFn: () => answer(api.GET('/agents/{agent_id}', { params: { path: { agent_id: agentId } } })),
  });
  if (!agent.data) return <ErrorLine error={agent.error ?? new Error('Loading…')} />;
  return <FlowEditor key={agent.data.public_id} agent={agent.data} />;
}

function useAgentChoices(agent: Agent): AgentChoices {
  const api = useApi();
  const path = { agent_id: agent.public_id };
  const tools = useQuery({
    queryKey: ['tools', agent.public_id],
    queryFn: () => answer(api.GET('/agents/{agent_id}/tools', { params: { path } })),
  });
  const documents = useQuery({
    queryKey: ['knowledge', agent.public_id],
    queryFn: () => answer(api.GET('/agents/{agent_id}/knowledge-base/documents', { params: { path } })),
  });
  const transfer = (agent.workflow_configurations as { transfer?: { destinations?: { name: string }[] } }).transfer;
  return {
    tools: tools.data?.items.map((tool) => tool.name) ?? [],
    documents: documents.data?.items.map((document) => ({ id: document.id, title: document.title })) ?? [],
    destinations: transfer?.destinations?.map((destination) => destination.name) ?? [],
    dispositions: Object.keys(agent.call_disposition_codes),
  };
}

/** The draft last saved, and the flow exactly as it was then (publishing it is offered while unchanged). */
interface Saved {
  id: number;
  flow: model.EditedFlow;
}

function FlowEditor({ agent }: { agent: Agent }) {
  const api = useApi();
  const path = { agent_id: agent.public_id };
  const [flow, setFlow] = useState(() => flowOf(agent.workflow_definition as Record<string, unknown>));
  // The flow as opened or last saved: anything else is an unsaved change, asked about before it is lost.
  const [baseline, setBaseline] = useState(flow);
  const unsaved = useMemo(() => !model.sameDefinition(flow, baseline), [flow, baseline]);
  useLeaveGuard(unsaved, 'The flow has unsaved changes. Leave without saving them?');
  const [source, setSource] = useState(
    model.isFlow(agent.workflow_definition as Record<string, unknown>)
      ? `the current version (#${agent.current_definition_id})`
      : `a flow made from the current version's flat prompt (#${agent.current_definition_id}); saving makes it a flow`,
  );
  const [selection, setSelection] = useState<Selection>(null);
  // The API's answer to the last save that failed, with the flow it was sent.
  const [rejected, setRejected] = useState<{ issues: FlowIssue[]; sent: model.EditedFlow } | null>(null);
  const issues = useMemo(() => currentIssues(rejected, flow), [rejected, flow]);
  const [saved, setSaved] = useState<Saved | null>(null);
  const [note, setNote] = useState('');
  const [newType, setNewType] = useState<model.NodeType>('agentNode');
  const [arrangements, setArrangements] = useState(0);
  const choices = useAgentChoices(agent);

  const save = useMutation({
    // What is saved is passed to `mutate`: the options the mutation holds are those of the last
    // effect, which may be a render behind what was just typed.
    mutationFn: async ({ sent, note }: { sent: model.EditedFlow; note: string }) => {
      const { data, error, response } = await api.POST('/agents/{agent_id}/definitions', {
        params: { path },
        body: { workflow_definition: model.definitionOf(sent), ...(note ? { note } : {}) },
      });
      if (response.status === 422) {
        const found = issuesOf((error as { detail?: unknown }).detail, sent);
        setRejected({ issues: found, sent });
        throw new ApiError(`Not saved: the API found ${found.length} problem(s), shown on the flow.`, 422);
      }
      if (!data) throw new ApiError(detailOf(error, response.status), response.status);
      return { id: data.id, flow: sent };
    },
    meta: { touches: ['definitions', agent.public_id] },
    onSuccess: (draft) => {
      setRejected(null);
      setSaved(draft);
      setBaseline(draft.flow);
      setNote('');
    },
  });
  const publish = useMutation({
    mutationFn: (definitionId: number) =>
      answer(
        api.POST('/agents/{agent_id}/definitions/{definition_id}/publish', {
          params: { path: { ...path, definition_id: definitionId } },
        }),
      ),
    meta: { touches: ['definitions', agent.public_id] },
    // The agent's current definition changed too.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['agent', agent.public_id] }),
  });

  const change = (next: model.EditedFlow) => setFlow(next);
  const selectedNode =
    selection && 'node' in selection ? flow.nodes.find((node) => node.id === selection.node) : undefined;
  const selectedEdge =
    selection && 'edge' in selection ? flow.edges.find((edge) => edge.key === selection.edge) : undefined;
  const deleteSelected = () => {
    if (selectedNode) change(model.removeNode(flow, selectedNode.id));
    if (selectedEdge) change(model.removeEdge(flow, selectedEdge.key));
    setSelection(null);
  };
  const connect = (from: string, to: string) => {
    const added = model.addEdge(flow, from, to);
    change(added.flow);
    if (added.key) setSelection({ edge: added.key });
  };
  const addStep = () => {
    const node = model.newNode(flow, newType, model.freeSpot(flow, selectedNode?.id));
    change(model.addNode(flow, node));
    setSelection({ node: node.id });
  };
  const unchangedDraft = saved !== null && saved.flow === flow;

  return (
    <section aria-labelledby="flow-title">
      <p>
        <a href={href('agents', agent.public_id)}>Back to {agent.name}</a>
      </p>
      <h2 id="flow-title">Conversation flow of {agent.name}</h2>
      <p>
        Editing {source}. <strong aria-live="polite">{unsaved ? 'Unsaved changes.' : ''}</strong>
      </p>
      <div class="actions flow-toolbar" role="toolbar" aria-label="Flow">
        <label for="flow-new-type" class="inline">
          New step
        </label>
        <select
          id="flow-new-type"
          value={newType}
          onChange={(e) => setNewType(e.currentTarget.value as model.NodeType)}
        >
          {model.NODE_TYPES.map((entry) => (
            <option key={entry.type} value={entry.type}>
              {entry.title}
            </option>
          ))}
        </select>
        <button type="button" onClick={addStep}>
          Add step
        </button>
        <button type="button" class="secondary" disabled={!selectedNode && !selectedEdge} onClick={deleteSelected}>
          Delete selected
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            change(model.arranged(flow));
            setArrangements((count) => count + 1);
          }}
        >
          Arrange the steps
        </button>
      </div>
      <div class="flow-editor">
        <FlowGraph
          label="Flow canvas: drag from a step's lower handle to another step's upper handle to add a transition"
          flow={flow}
          viewKey={arrangements}
          issues={issues}
          selection={selection}
          onSelect={setSelection}
          onMove={(id, position) => setFlow((current) => model.moveNode(current, id, position))}
          onConnect={connect}
          onDelete={deleteSelected}
        />
        <div class="flow-side">
          {selectedNode && (
            <NodePanel
              key={selectedNode.id}
              node={selectedNode}
              flow={flow}
              issues={issuesOfNode(issues, selectedNode.id)}
              choices={choices}
              onChange={(node) => change(model.replaceNode(flow, selectedNode.id, node))}
              onChangeType={(type) => {
                const changed = model.changeType(flow, selectedNode.id, type);
                change(changed.flow);
                return changed;
              }}
              onConnect={(target) => connect(selectedNode.id, target)}
              onDelete={deleteSelected}
            />
          )}
          {selectedEdge && (
            <EdgePanel
              key={selectedEdge.key}
              edge={selectedEdge}
              flow={flow}
              issues={issuesOfEdge(issues, selectedEdge.key)}
              onChange={(edge) => change(model.replaceEdge(flow, edge))}
              onDelete={deleteSelected}
            />
          )}
          {!selectedNode && !selectedEdge && (
            <>
              <p>Select a step or a transition to edit it.</p>
              <TextField
                id="flow-closing"
                label="Closing when the caller ends the call in a step that is not an end"
                rows={2}
                value={flow.closing}
                onChange={(value) => {
                  const { closing: _closing, ...rest } = flow;
                  change(value ? { ...rest, closing: value } : rest);
                }}
                hint="Empty: the call's closing phrase in its language"
              />
            </>
          )}
          <Outline flow={flow} issues={issues} selection={selection} onSelect={setSelection} />
        </div>
      </div>
      <form aria-labelledby="flow-save-title" onSubmit={onSubmitRun(() => save.mutate({ sent: flow, note }))}>
        <h3 id="flow-save-title">Save and publish</h3>
        <label for="flow-note">What changed (optional note for the history)</label>
        <input id="flow-note" maxLength={500} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit" disabled={save.isPending}>
            Save as draft
          </button>
          <button
            type="button"
            disabled={!unchangedDraft || publish.isPending}
            onClick={() => saved && publish.mutate(saved.id)}
          >
            Publish
          </button>
          <TryIt agentId={agent.public_id} definitionId={unchangedDraft ? saved.id : null} />
        </div>
        <p role="status">
          {publish.isSuccess && publish.variables === saved?.id
            ? `Published version #${saved.id}: calls started from now on run it.`
            : saved
              ? `Saved draft #${saved.id}${unchangedDraft ? '' : ' (changed since)'}.`
              : ''}
        </p>
        <ErrorLine error={save.error ?? publish.error} />
      </form>
      <Versions
        agent={agent}
        onOpen={(definition) => {
          if (unsaved && !confirm(`The flow has unsaved changes. Open version #${definition.id} without saving them?`))
            return;
          const opened = flowOf(definition.workflow_definition as Record<string, unknown>);
          setFlow(opened);
          setBaseline(opened);
          setSource(`version #${definition.id}`);
          setSelection(null);
          setRejected(null);
        }}
      />
    </section>
  );
}
