/**
 * A flow drawn with @xyflow/react: one node component for every type (its kind, its name, what the
 * API found wrong with it), transitions as arrows labelled with their condition. The editor passes
 * the handlers that change the flow; the run page draws it read-only with the path a call took.
 */
import {
  Background,
  type Connection,
  Controls,
  type Edge,
  type EdgeChange,
  Handle,
  MarkerType,
  type Node,
  type NodeChange,
  type NodeProps,
  Position,
  ReactFlow,
  type ReactFlowInstance,
  useStore,
  useUpdateNodeInternals,
} from '@xyflow/react';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { type FlowIssue, issuesOfEdge, issuesOfNode, issueText } from './issues.ts';
import { type EditedFlow, hasEntries, hasExits, layout, type NodeType, typeTitle } from './model.ts';

interface StepData extends Record<string, unknown> {
  name: string;
  kind: NodeType;
  problems: string[];
  /** Its places in the path of a call (1-based), on the run page. */
  visits: number[];
}
type StepNode = Node<StepData, 'step'>;

function Step({ data, isConnectable }: NodeProps<StepNode>) {
  return (
    <div class={`flow-node flow-${data.kind}${data.problems.length ? ' flow-invalid' : ''}`}>
      {hasEntries(data.kind) && <Handle type="target" position={Position.Top} isConnectable={isConnectable} />}
      <small>{typeTitle(data.kind)}</small>
      <strong>{data.name}</strong>
      {data.visits.length > 0 && <span class="flow-visits">Step {data.visits.join(', ')} of the call</span>}
      {data.problems.length > 0 && (
        <ul class="flow-problems">
          {data.problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      )}
      {hasExits(data.kind) && <Handle type="source" position={Position.Bottom} isConnectable={isConnectable} />}
    </div>
  );
}

const NODE_TYPES = { step: Step };

/** A problem on a transition's label is cut short; the outline and the panel say it whole. */
const shortened = (text: string) => (text.length > 60 ? `${text.slice(0, 59)}…` : text);

export type Selection = { node: string } | { edge: string } | null;

/**
 * Measures again a step that lost its handles. React Flow drops a node's handles when it adopts a
 * node object without `measured`. Preact runs effects after the frame's resize observations, so
 * an object built before the step's first measurement can be adopted after it. The step then
 * stays measured without handles, and its transitions are never drawn (seen in CI).
 */
function HandlesRemeasured() {
  const lost = useStore((state) =>
    [...state.nodeLookup.values()]
      .filter((node) => node.measured?.width !== undefined && !node.internals.handleBounds)
      .map((node) => node.id)
      .join('\n'),
  );
  const updateNodeInternals = useUpdateNodeInternals();
  useEffect(() => {
    if (lost) updateNodeInternals(lost.split('\n'));
  }, [lost, updateNodeInternals]);
  return null;
}

/** What the graph shows of a call's path: the nodes in order, and the edges it took. */
export interface PathShown {
  nodes: string[];
  edges: Set<string>;
}

export function FlowGraph({
  flow,
  issues = [],
  selection = null,
  path,
  label,
  viewKey = 0,
  onSelect,
  onMove,
  onConnect,
  onDelete,
}: {
  flow: EditedFlow;
  issues?: FlowIssue[];
  selection?: Selection;
  path?: PathShown;
  label: string;
  /** Changed when the nodes were placed anew (arranged): the view takes them all in again. */
  viewKey?: number;
  onSelect?: (selection: Selection) => void;
  onMove?: (id: string, position: { x: number; y: number }) => void;
  onConnect?: (source: string, target: string) => void;
  onDelete?: () => void;
}) {
  const editing = onMove !== undefined;
  const [measured, setMeasured] = useState(new Map<string, { width: number; height: number }>());
  const positions = useMemo(() => layout(flow), [flow]);
  // A step added from the toolbar may land outside the view: the view takes in every step again.
  const [instance, setInstance] = useState<ReactFlowInstance<StepNode, Edge> | null>(null);
  useEffect(() => void instance?.fitView(), [instance, flow.nodes.length, viewKey]);
  const nodes = useMemo(
    (): StepNode[] =>
      flow.nodes.map((node) => ({
        id: node.id,
        type: 'step',
        position: positions.get(node.id)!,
        selected: selection !== null && 'node' in selection && selection.node === node.id,
        measured: measured.get(node.id),
        ariaLabel: `${typeTitle(node.type)} ${node.name}`,
        data: {
          name: node.name,
          kind: node.type,
          problems: issuesOfNode(issues, node.id).map(issueText),
          visits: path ? path.nodes.flatMap((id, index) => (id === node.id ? [index + 1] : [])) : [],
        },
      })),
    [flow, positions, selection, measured, issues, path],
  );
  const edges = useMemo(
    (): Edge[] =>
      flow.edges.map((edge) => {
        const problems = issuesOfEdge(issues, edge.key);
        const taken = path?.edges.has(`${edge.source}→${edge.target}`) ?? false;
        const text = edge.label ?? edge.condition ?? edge.expression ?? '';
        return {
          id: edge.key,
          source: edge.source,
          target: edge.target,
          label: problems.length ? `⚠ ${shortened(problems.map(issueText).join('; '))}` : text,
          selected: selection !== null && 'edge' in selection && selection.edge === edge.key,
          markerEnd: { type: MarkerType.ArrowClosed },
          className: [problems.length ? 'flow-invalid' : '', taken ? 'flow-taken' : ''].join(' '),
          ariaLabel: `Transition from ${edge.source} to ${edge.target}${text ? `: ${text}` : ''}`,
        };
      }),
    [flow, issues, selection, path],
  );
  const nodesChanged = (changes: NodeChange<StepNode>[]) => {
    for (const change of changes) {
      if (change.type === 'position' && change.position) onMove?.(change.id, change.position);
      if (change.type === 'select' && change.selected) onSelect?.({ node: change.id });
      if (change.type === 'dimensions' && change.dimensions) {
        const { dimensions, id } = change;
        setMeasured((current) => new Map(current).set(id, dimensions));
      }
    }
  };
  const edgesChanged = (changes: EdgeChange[]) => {
    for (const change of changes) if (change.type === 'select' && change.selected) onSelect?.({ edge: change.id });
  };
  return (
    <div class="flow-canvas" role="region" aria-label={label}>
      <ReactFlow<StepNode, Edge>
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        onNodesChange={nodesChanged}
        onEdgesChange={edgesChanged}
        onConnect={(connection: Connection) => onConnect?.(connection.source, connection.target)}
        onPaneClick={() => onSelect?.(null)}
        onDelete={() => onDelete?.()}
        deleteKeyCode={editing ? ['Delete', 'Backspace'] : null}
        nodesDraggable={editing}
        nodesConnectable={editing}
        elementsSelectable={editing}
        onInit={setInstance}
        fitView
        minZoom={0.2}
      >
        <Background />
        <Controls showInteractive={false} />
        <HandlesRemeasured />
      </ReactFlow>
    </div>
  );
}
