/**
 * The flow editor's model, pure: the definition being edited (the API's `FlowDefinition`, each edge
 * with a key of the editor's own, since edges have no id), the changes the editor makes to it, and
 * where a node is drawn when the definition does not say.
 */
import type { components } from '../../../client/openapi.d.ts';
import { type FlowDefinition as DomainFlow, lintFlow } from '../../../shared/domain/flows.ts';

export type FlowNode = components['schemas']['FlowNode'];
export type FlowEdge = components['schemas']['FlowEdge'];
export type FlowVariable = components['schemas']['FlowVariable'];
export type NodeType = FlowNode['type'];
export type FlowDefinition = components['schemas']['FlowDefinition'];
export type PreCallFetch = NonNullable<components['schemas']['FlowStartNode']['pre_call_fetch']>;

/** An edge as the editor holds it: the API's edge and a key that stays while its ends change. */
export type EditedEdge = FlowEdge & { key: string };
export interface EditedFlow {
  nodes: FlowNode[];
  edges: EditedEdge[];
  /** The flow's closing (the caller ending the call in any step), when it has one. */
  closing?: string;
}

/** What the console calls each node type, and the id and name a new one gets. */
export const NODE_TYPES: { type: NodeType; title: string; stem: string }[] = [
  { type: 'startCall', title: 'Start', stem: 'start' },
  { type: 'agentNode', title: 'Conversation step', stem: 'step' },
  { type: 'transferCall', title: 'Transfer', stem: 'transfer' },
  { type: 'endCall', title: 'End', stem: 'end' },
  { type: 'globalNode', title: 'Global', stem: 'global' },
];
export const typeTitle = (type: NodeType): string => NODE_TYPES.find((entry) => entry.type === type)!.title;

/**
 * A start step's pre-call fetch from the panel's two fields, its URL and the names of the answer's
 * keys that become variables (split on commas and spaces): none when both are empty. A half-filled
 * one is kept as typed, for the API's 422 to show on the step.
 */
export function preCallFetch(url: string | undefined, names: string): PreCallFetch | undefined {
  const variables = names.split(/[\s,]+/).filter(Boolean);
  return url || variables.length ? { url: url ?? '', variables } : undefined;
}

/** Whether edges may leave / enter a node of this type (the lint rules of docs/flows.md). */
export const hasExits = (type: NodeType): boolean => type !== 'endCall' && type !== 'transferCall';
export const hasEntries = (type: NodeType): boolean => type !== 'startCall' && type !== 'globalNode';

export const isFlow = (definition: Record<string, unknown>): boolean =>
  Array.isArray(definition.nodes) && Array.isArray(definition.edges);

let edgeKeys = 0;
const newEdgeKey = () => `edge-${++edgeKeys}`;

export function editable(flow: FlowDefinition): EditedFlow {
  return {
    nodes: flow.nodes,
    edges: flow.edges.map((edge) => ({ ...edge, key: newEdgeKey() })),
    ...(flow.closing ? { closing: flow.closing } : {}),
  };
}

/** Whether two flows are the same definition (the editor's edge keys aside): unsaved changes. */
export const sameDefinition = (a: EditedFlow, b: EditedFlow): boolean =>
  a === b || JSON.stringify(definitionOf(a)) === JSON.stringify(definitionOf(b));

/** The definition to send: the edges without the editor's keys. */
export function definitionOf(flow: EditedFlow): FlowDefinition {
  return {
    nodes: flow.nodes,
    edges: flow.edges.map(({ key: _key, ...edge }) => edge),
    ...(flow.closing ? { closing: flow.closing } : {}),
  };
}

/**
 * A flat definition as the flow it behaves as: one start step with its greeting and prompt, and an
 * end with its closing, left when the caller has no more questions.
 */
export function flowFromFlat(flat: Record<string, unknown>): FlowDefinition {
  const text = (key: string) => (typeof flat[key] === 'string' && flat[key] !== '' ? (flat[key] as string) : undefined);
  return {
    nodes: [
      {
        id: 'start',
        type: 'startCall',
        name: 'Conversation',
        prompt: text('prompt') ?? 'Help the caller.',
        ...(text('greeting') ? { greeting: text('greeting') } : {}),
        position: { x: 0, y: 0 },
      },
      {
        id: 'end',
        type: 'endCall',
        name: 'Goodbye',
        ...(text('closing') ? { closing: text('closing') } : {}),
        position: { x: 0, y: 200 },
      },
    ],
    edges: [{ source: 'start', target: 'end', condition: 'The caller has no more questions' }],
  };
}

/** A new node of `type`, with an id and a name no node has yet. */
export function newNode(flow: EditedFlow, type: NodeType, position: { x: number; y: number }): FlowNode {
  const { stem, title } = NODE_TYPES.find((entry) => entry.type === type)!;
  let n = 1;
  const taken = (id: string, name: string) =>
    flow.nodes.some((node) => node.id === id || node.name.toLowerCase() === name.toLowerCase());
  while (taken(`${stem}_${n}`, `${title} ${n}`)) n += 1;
  const base = { id: `${stem}_${n}`, name: `${title} ${n}`, position };
  switch (type) {
    case 'startCall':
      return { ...base, type, prompt: 'Greet the caller and find out what they need.' };
    case 'agentNode':
      return { ...base, type, prompt: 'Describe what the agent does in this step.' };
    case 'globalNode':
      return { ...base, type, prompt: 'Be brief and polite.' };
    case 'transferCall':
      return { ...base, type };
    case 'endCall':
      return { ...base, type };
  }
}

export const addNode = (flow: EditedFlow, node: FlowNode): EditedFlow => ({ ...flow, nodes: [...flow.nodes, node] });

/** The fields each type of node has besides `id`, `type`, `name` and `position` (the API's node schemas). */
const FIELDS: Record<NodeType, string[]> = {
  startCall: ['greeting', 'prompt', 'tools', 'documents', 'extract', 'interruptible', 'language', 'pre_call_fetch'],
  agentNode: ['prompt', 'tools', 'documents', 'extract', 'interruptible', 'language'],
  transferCall: ['destination'],
  endCall: ['closing', 'extract', 'disposition'],
  globalNode: ['prompt'],
};

/** What changing a node's type in place did: the flow, and what the new type had no place for. */
export interface TypeChange {
  flow: EditedFlow;
  /** Fields of the old node the new type does not have. */
  droppedFields: string[];
  /** Transitions the new type cannot have (lintFlow: none leaves an end or a transfer, none enters the start or the global node). */
  droppedEdges: number;
}

/**
 * The node `id` as a node of `type`, in place: its id, name and position, the fields both types
 * have (a required prompt the old one lacks is the new type's default), and its transitions
 * except those the API's rules refuse for the new type (lintFlow's `source`/`target` problems on
 * the edges it joins). Other problems (a second start, a global transition without a condition)
 * stay for the editor to show.
 */
export function changeType(flow: EditedFlow, id: string, type: NodeType): TypeChange {
  const old = flow.nodes.find((node) => node.id === id)!;
  const fields = old as Record<string, unknown>;
  // The new type's defaults (a prompt) where the old node has nothing to keep.
  const { position: _position, ...fresh } = newNode({ nodes: [], edges: [] }, type, { x: 0, y: 0 });
  const kept = Object.fromEntries(FIELDS[type].filter((key) => key in fields).map((key) => [key, fields[key]]));
  const node = {
    ...fresh,
    ...kept,
    id,
    name: old.name,
    ...(old.position ? { position: old.position } : {}),
  } as FlowNode;
  const droppedFields = FIELDS[old.type].filter((key) => key in fields && !FIELDS[type].includes(key));
  const next = replaceNode(flow, id, node);
  const refused = new Set(
    lintFlow(definitionOf(next) as unknown as DomainFlow)
      .filter(({ path: [part, , field] }) => part === 'edges' && (field === 'source' || field === 'target'))
      .map(({ path: [, index] }) => next.edges[index as number]!.key),
  );
  const edges = next.edges.filter((edge) => !refused.has(edge.key) || (edge.source !== id && edge.target !== id));
  return { flow: { ...next, edges }, droppedFields, droppedEdges: next.edges.length - edges.length };
}

/** The node and every edge that leaves or enters it. */
export const removeNode = (flow: EditedFlow, id: string): EditedFlow => ({
  ...flow,
  nodes: flow.nodes.filter((node) => node.id !== id),
  edges: flow.edges.filter((edge) => edge.source !== id && edge.target !== id),
});

export const replaceNode = (flow: EditedFlow, id: string, node: FlowNode): EditedFlow => ({
  ...flow,
  nodes: flow.nodes.map((current) => (current.id === id ? node : current)),
});

export const moveNode = (flow: EditedFlow, id: string, position: { x: number; y: number }): EditedFlow =>
  replaceNode(flow, id, {
    ...flow.nodes.find((node) => node.id === id)!,
    position: { x: Math.round(position.x), y: Math.round(position.y) },
  });

/** A new transition, unless one already joins the same two nodes the same way (the key of the edge, or null). */
export function addEdge(flow: EditedFlow, source: string, target: string): { flow: EditedFlow; key: string | null } {
  if (source === target || flow.edges.some((edge) => edge.source === source && edge.target === target))
    return { flow, key: null };
  const key = newEdgeKey();
  return { flow: { ...flow, edges: [...flow.edges, { source, target, key }] }, key };
}

export const removeEdge = (flow: EditedFlow, key: string): EditedFlow => ({
  ...flow,
  edges: flow.edges.filter((edge) => edge.key !== key),
});

export const replaceEdge = (flow: EditedFlow, edge: EditedEdge): EditedFlow => ({
  ...flow,
  edges: flow.edges.map((current) => (current.key === edge.key ? edge : current)),
});

const LAYER_HEIGHT = 180;
const COLUMN_WIDTH = 260;

/**
 * Where each node without a `position` is drawn: in layers by its distance from the start along
 * the edges (a definition written by hand or by the API has none), each layer centred under the
 * start, the global node beside the start, nodes the start does not reach in a layer below.
 */
export function layout(flow: { nodes: FlowNode[]; edges: FlowEdge[] }): Map<string, { x: number; y: number }> {
  const depth = new Map<string, number>();
  const start = flow.nodes.find((node) => node.type === 'startCall');
  const queue = start ? [start.id] : [];
  if (start) depth.set(start.id, 0);
  while (queue.length) {
    const id = queue.shift()!;
    for (const edge of flow.edges)
      if (edge.source === id && !depth.has(edge.target)) {
        depth.set(edge.target, depth.get(id)! + 1);
        queue.push(edge.target);
      }
  }
  const deepest = Math.max(0, ...depth.values());
  const unplaced = flow.nodes.filter((node) => !node.position && node.type !== 'globalNode');
  const layers = new Map<number, string[]>();
  for (const node of unplaced) {
    const layer = depth.get(node.id) ?? deepest + 1;
    layers.set(layer, [...(layers.get(layer) ?? []), node.id]);
  }
  const positions = new Map<string, { x: number; y: number }>();
  for (const [layer, ids] of layers)
    ids.forEach((id, column) =>
      positions.set(id, { x: (column - (ids.length - 1) / 2) * COLUMN_WIDTH, y: layer * LAYER_HEIGHT }),
    );
  for (const node of flow.nodes) {
    if (node.position) positions.set(node.id, node.position);
    else if (node.type === 'globalNode') positions.set(node.id, { x: -2 * COLUMN_WIDTH, y: 0 });
  }
  return positions;
}

/** Every node placed anew by `layout`, as if none had a position. */
export function arranged(flow: EditedFlow): EditedFlow {
  const bare = flow.nodes.map(({ position: _position, ...node }) => node as FlowNode);
  const positions = layout({ nodes: bare, edges: flow.edges });
  return { ...flow, nodes: bare.map((node) => ({ ...node, position: positions.get(node.id)! })) };
}

/**
 * Where a new node appears: under `below` (the selected node) or under the lowest node, moved
 * sideways until no node is there.
 */
export function freeSpot(flow: EditedFlow, below?: string): { x: number; y: number } {
  const placed = [...layout(flow).entries()];
  const anchor = placed.find(([id]) => id === below)?.[1] ??
    placed.reduce<{ x: number; y: number } | undefined>(
      (lowest, [, position]) => (!lowest || position.y > lowest.y ? position : lowest),
      undefined,
    ) ?? { x: 0, y: -LAYER_HEIGHT };
  const spot = { x: anchor.x, y: anchor.y + LAYER_HEIGHT };
  const blocking = () =>
    placed.find(
      ([, position]) =>
        Math.abs(position.x - spot.x) < COLUMN_WIDTH && Math.abs(position.y - spot.y) < LAYER_HEIGHT / 2,
    )?.[1];
  // Each node in the way moves the spot past it, so this ends.
  for (let blocker = blocking(); blocker; blocker = blocking()) spot.x = blocker.x + COLUMN_WIDTH;
  return spot;
}
