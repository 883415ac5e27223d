/**
 * The side panel: the selected step's or transition's fields as a form (no JSON), the API's
 * problems with it, and, for a step, a transition to another step added from the keyboard.
 */
import { useState } from 'preact/hooks';
import { TextField, PickField, PreCallFetchField, VariablesField } from './fields.tsx';
import { type FlowIssue, issueText } from './issues.ts';
import {
  type EditedEdge,
  type EditedFlow,
  type FlowNode,
  hasEntries,
  hasExits,
  NODE_TYPES,
  type NodeType,
  type TypeChange,
  typeTitle,
} from './model.ts';

/** What a change of kind left out, in words. */
function typeChangeText(type: NodeType, { droppedFields, droppedEdges }: TypeChange): string {
  const lost = [
    droppedEdges && `${droppedEdges} transition${droppedEdges > 1 ? 's' : ''} it cannot have`,
    droppedFields.length && `its ${droppedFields.join(', ')}`,
  ].filter(Boolean);
  return `Now of the kind “${typeTitle(type)}”${lost.length ? `; removed: ${lost.join(', ')}` : ''}.`;
}

/** What the agent has that a step may name: its tools, knowledge documents, destinations, dispositions. */
export interface AgentChoices {
  tools: string[];
  documents: { id: string; title: string }[];
  destinations: string[];
  dispositions: string[];
}

function Problems({ issues }: { issues: FlowIssue[] }) {
  if (!issues.length) return null;
  return (
    <ul class="flow-problems" aria-label="Problems with the selection">
      {issues.map((issue, index) => (
        <li key={index}>{issueText(issue)}</li>
      ))}
    </ul>
  );
}

/** A step's own fields, by its type. */
function NodeFields({
  node,
  onChange,
  choices,
}: {
  node: FlowNode;
  onChange: (node: FlowNode) => void;
  choices: AgentChoices;
}) {
  // Setting a field to undefined leaves it out of the definition (the API's default applies).
  const set = (key: string, value: unknown) => {
    const next: Record<string, unknown> = { ...node, [key]: value };
    if (value === undefined) delete next[key];
    onChange(next as FlowNode);
  };
  const field = (key: string) => (node as Record<string, unknown>)[key] as string | undefined;
  const id = (key: string) => `flow-node-${key}`;
  const conversation = node.type === 'startCall' || node.type === 'agentNode';
  return (
    <>
      {node.type === 'startCall' && (
        <TextField
          id={id('greeting')}
          label="Greeting (said first)"
          value={node.greeting}
          onChange={(value) => set('greeting', value)}
        />
      )}
      {node.type === 'startCall' && (
        <PreCallFetchField
          id={id('pre-call-fetch')}
          value={node.pre_call_fetch}
          onChange={(value) => set('pre_call_fetch', value)}
        />
      )}
      {(conversation || node.type === 'globalNode') && (
        <TextField
          id={id('prompt')}
          label={node.type === 'globalNode' ? 'Instructions for every step' : 'Prompt: what the agent does here'}
          rows={5}
          value={field('prompt')}
          onChange={(value) => set('prompt', value ?? '')}
        />
      )}
      {conversation && (
        <>
          <label class="inline">
            <input
              type="checkbox"
              checked={node.interruptible !== false}
              onChange={(e) => set('interruptible', e.currentTarget.checked ? undefined : false)}
            />{' '}
            The caller may interrupt (untick for a disclosure read in full)
          </label>
          <PickField
            legend="Tools offered in this step"
            options={choices.tools.map((name) => ({ value: name, label: name }))}
            picked={node.tools}
            onChange={(value) => set('tools', value)}
            none="The agent has no HTTP tools."
          />
          <PickField
            legend="Knowledge documents searched (none ticked: all)"
            options={choices.documents.map((document) => ({ value: document.id, label: document.title }))}
            picked={node.documents}
            onChange={(value) => set('documents', value)}
            none="The agent has no knowledge documents."
          />
          <TextField
            id={id('language')}
            label="Language of this step (empty: the call's)"
            value={node.language}
            onChange={(value) => set('language', value)}
          />
        </>
      )}
      {(conversation || node.type === 'endCall') && (
        <VariablesField
          id={id('extract')}
          legend={node.type === 'endCall' ? 'Variables extracted as the call ends' : 'Variables to extract'}
          variables={node.extract}
          onChange={(value) => set('extract', value)}
        />
      )}
      {node.type === 'transferCall' && (
        <>
          <label for={id('destination')}>Destination</label>
          <select
            id={id('destination')}
            value={node.destination ?? ''}
            onChange={(e) => set('destination', e.currentTarget.value || undefined)}
          >
            <option value="">The first of the agent's destinations</option>
            {choices.destinations.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </>
      )}
      {node.type === 'endCall' && (
        <>
          <TextField
            id={id('closing')}
            label="Closing words"
            rows={2}
            value={node.closing}
            onChange={(value) => set('closing', value)}
          />
          <label for={id('disposition')}>Disposition</label>
          <select
            id={id('disposition')}
            value={node.disposition ?? ''}
            onChange={(e) => set('disposition', e.currentTarget.value || undefined)}
          >
            <option value="">None</option>
            {[...new Set([...choices.dispositions, ...(node.disposition ? [node.disposition] : [])])].map((code) => (
              <option key={code}>{code}</option>
            ))}
          </select>
        </>
      )}
    </>
  );
}

/** The selected step: its name, its fields, its problems, and a transition to another step. */
export function NodePanel({
  node,
  flow,
  issues,
  choices,
  onChange,
  onChangeType,
  onConnect,
  onDelete,
}: {
  node: FlowNode;
  flow: EditedFlow;
  issues: FlowIssue[];
  choices: AgentChoices;
  onChange: (node: FlowNode) => void;
  /** Makes the step a step of another kind in place (model.changeType); what it left out. */
  onChangeType: (type: NodeType) => TypeChange;
  onConnect: (target: string) => void;
  onDelete: () => void;
}) {
  const targets = flow.nodes.filter((other) => other.id !== node.id && hasEntries(other.type));
  const [target, setTarget] = useState('');
  const [typeChanged, setTypeChanged] = useState('');
  return (
    <section class="flow-panel" aria-labelledby="flow-panel-title">
      <h4 id="flow-panel-title">
        {typeTitle(node.type)}: {node.name}
      </h4>
      <p>
        Id <code>{node.id}</code>
      </p>
      <Problems issues={issues} />
      <TextField
        id="flow-node-name"
        label="Name"
        value={node.name}
        onChange={(value) => onChange({ ...node, name: value ?? '' })}
      />
      <label for="flow-node-kind">Kind of step</label>
      <select
        id="flow-node-kind"
        value={node.type}
        onChange={(e) => {
          const type = e.currentTarget.value as NodeType;
          setTypeChanged(typeChangeText(type, onChangeType(type)));
        }}
      >
        {NODE_TYPES.map((entry) => (
          <option key={entry.type} value={entry.type}>
            {entry.title}
          </option>
        ))}
      </select>
      <p aria-live="polite">{typeChanged}</p>
      <NodeFields node={node} onChange={onChange} choices={choices} />
      {hasExits(node.type) && (
        <>
          <label for="flow-connect-target">Add a transition from “{node.name}” to</label>
          <select id="flow-connect-target" value={target} onChange={(e) => setTarget(e.currentTarget.value)}>
            <option value="">Choose a step</option>
            {targets.map((other) => (
              <option key={other.id} value={other.id}>
                {other.name}
              </option>
            ))}
          </select>
          <button type="button" disabled={!target} onClick={() => onConnect(target)}>
            Add transition
          </button>
        </>
      )}
      <div class="actions">
        <button type="button" class="secondary" onClick={onDelete}>
          Delete step “{node.name}”
        </button>
      </div>
    </section>
  );
}

/** The selected transition: when it is taken, in words and as a test on the variables. */
export function EdgePanel({
  edge,
  flow,
  issues,
  onChange,
  onDelete,
}: {
  edge: EditedEdge;
  flow: EditedFlow;
  issues: FlowIssue[];
  onChange: (edge: EditedEdge) => void;
  onDelete: () => void;
}) {
  const name = (id: string) => flow.nodes.find((node) => node.id === id)?.name ?? id;
  const set = (key: 'label' | 'condition' | 'expression', value: string | undefined) => {
    const next: EditedEdge = { ...edge, [key]: value };
    if (value === undefined) delete next[key];
    onChange(next);
  };
  const title = `“${name(edge.source)}” → “${name(edge.target)}”`;
  return (
    <section class="flow-panel" aria-labelledby="flow-panel-title">
      <h4 id="flow-panel-title">Transition {title}</h4>
      <Problems issues={issues} />
      <TextField
        id="flow-edge-condition"
        label="Condition in words (the model judges it)"
        rows={2}
        value={edge.condition}
        onChange={(value) => set('condition', value)}
        hint="e.g. The caller wants a card"
      />
      <TextField
        id="flow-edge-expression"
        label="Expression on the variables (checked first)"
        value={edge.expression}
        onChange={(value) => set('expression', value)}
        hint="e.g. age >= 18 and consent == true; with neither, taken once the step is complete"
      />
      <TextField id="flow-edge-label" label="Label" value={edge.label} onChange={(value) => set('label', value)} />
      <div class="actions">
        <button type="button" class="secondary" onClick={onDelete}>
          Delete transition {title}
        </button>
      </div>
    </section>
  );
}
