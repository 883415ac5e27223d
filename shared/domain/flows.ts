/**
 * A conversation flow: `workflow_definition` as a graph of steps (nodes) joined by transitions
 * (edges), in Dograh's vocabulary. Its shape is checked by the zod schema (shared/schemas/flows.ts);
 * the rules between its parts are checked here (lintFlow), when it is saved, each with the place
 * in the definition it concerns. Pure.
 */
import { ExpressionError, expressionVariables, parseExpression } from './flow-expressions.ts';

export type FlowVariableType = 'string' | 'number' | 'boolean';

/** A variable the model extracts from the conversation in a step (into `gathered_context`). */
export interface FlowVariable {
  name: string;
  type: FlowVariableType;
  hint?: string;
}

/** What a step where the agent converses says and does. */
export interface ConversationFields {
  prompt: string;
  /** Names of the agent's HTTP tools offered in this step (no other tool is). */
  tools?: string[];
  /** Ids of the knowledge documents searched in this step (all of them when absent). */
  documents?: string[];
  extract?: FlowVariable[];
  /** `false`: the caller's words do not cut what the agent says in this step (a disclosure). */
  interruptible?: boolean;
  /** The language the agent speaks in this step, when not the call's. */
  language?: string;
}

export interface StartNode extends ConversationFields {
  id: string;
  type: 'startCall';
  name: string;
  greeting?: string;
  /** Fetched (GET, JSON object) when the call starts: the listed top-level keys become variables. */
  pre_call_fetch?: { url: string; variables: string[] };
}
export interface AgentNode extends ConversationFields {
  id: string;
  type: 'agentNode';
  name: string;
}
export interface TransferNode {
  id: string;
  type: 'transferCall';
  name: string;
  /** A name among the agent's transfer destinations (`workflow_configurations.transfer`); the first by default. */
  destination?: string;
}
export interface EndNode {
  id: string;
  type: 'endCall';
  name: string;
  closing?: string;
  /** Variables extracted from the whole conversation as the call ends. */
  extract?: FlowVariable[];
  /** The call's disposition code. */
  disposition?: string;
}
export interface GlobalNode {
  id: string;
  type: 'globalNode';
  name: string;
  /** Instructions added to every step. */
  prompt: string;
}
export type FlowNode = StartNode | AgentNode | TransferNode | EndNode | GlobalNode;
export type ConversationNode = StartNode | AgentNode;

export interface FlowEdge {
  source: string;
  target: string;
  label?: string;
  /** In words, judged by the model (offered to it as a function it calls to move on). */
  condition?: string;
  /** On the gathered variables (flow-expressions.ts), checked before the model is asked. */
  expression?: string;
}

export interface FlowDefinition {
  nodes: FlowNode[];
  edges: FlowEdge[];
  /** Said when the caller ends the call in a step that is not an end (media/src/call/flow-brain.ts). */
  closing?: string;
}

/** A rule broken, at `path` inside the definition. */
export interface FlowIssue {
  path: (string | number)[];
  message: string;
}

/**
 * A definition is a flow when it has both `nodes` and `edges` (a valid flow always has an edge to
 * its end); any other is the flat prompt (a one-step flow), so a definition that happened to carry
 * a `nodes` key of its own before flows existed keeps working unchanged.
 */
export const isFlowDefinition = (definition: Record<string, unknown>): boolean =>
  Object.hasOwn(definition, 'nodes') && Object.hasOwn(definition, 'edges');

export const isConversationNode = (node: FlowNode): node is ConversationNode =>
  node.type === 'startCall' || node.type === 'agentNode';

/** The variables a node extracts. */
export const extractedBy = (node: FlowNode): FlowVariable[] =>
  node.type === 'startCall' || node.type === 'agentNode' || node.type === 'endCall' ? (node.extract ?? []) : [];

/** Every rule between the parts of a flow whose shape is valid; none when it is sound. */
export function lintFlow(flow: FlowDefinition): FlowIssue[] {
  const issues: FlowIssue[] = [];
  const { nodes, edges } = flow;
  const starts = nodes.flatMap((node, index) => (node.type === 'startCall' ? [index] : []));
  if (!starts.length) issues.push({ path: ['nodes'], message: 'a flow has exactly one startCall node; it has none' });
  for (const index of starts.slice(1))
    issues.push({ path: ['nodes', index, 'type'], message: 'a flow has exactly one startCall node' });
  const globals = nodes.flatMap((node, index) => (node.type === 'globalNode' ? [index] : []));
  for (const index of globals.slice(1))
    issues.push({ path: ['nodes', index, 'type'], message: 'a flow has at most one globalNode' });

  const byId = new Map<string, FlowNode>();
  const names = new Set<string>();
  nodes.forEach((node, index) => {
    if (byId.has(node.id)) issues.push({ path: ['nodes', index, 'id'], message: `node id ${node.id} is used twice` });
    else byId.set(node.id, node);
    const name = node.name.trim().toLowerCase();
    if (names.has(name))
      issues.push({ path: ['nodes', index, 'name'], message: `node name ${node.name} is used twice` });
    names.add(name);
  });

  const variables = new Set<string>();
  const start = starts.length ? (nodes[starts[0]!] as StartNode) : undefined;
  start?.pre_call_fetch?.variables.forEach((name, index) => {
    const path = ['nodes', starts[0]!, 'pre_call_fetch', 'variables', index];
    if (variables.has(name)) issues.push({ path, message: `variable ${name} is named twice` });
    variables.add(name);
  });
  nodes.forEach((node, index) =>
    extractedBy(node).forEach((variable, position) => {
      if (variables.has(variable.name))
        issues.push({
          path: ['nodes', index, 'extract', position, 'name'],
          message: `variable ${variable.name} is named twice in the flow`,
        });
      variables.add(variable.name);
    }),
  );

  edges.forEach((edge, index) => {
    const source = byId.get(edge.source);
    const target = byId.get(edge.target);
    if (!source) issues.push({ path: ['edges', index, 'source'], message: `no node has the id ${edge.source}` });
    else if (source.type === 'endCall' || source.type === 'transferCall')
      issues.push({ path: ['edges', index, 'source'], message: `no edge leaves a ${source.type} node` });
    if (!target) issues.push({ path: ['edges', index, 'target'], message: `no node has the id ${edge.target}` });
    else if (target.type === 'globalNode' || target.type === 'startCall')
      issues.push({ path: ['edges', index, 'target'], message: `no edge leads to a ${target.type} node` });
    if (source?.type === 'globalNode' && !edge.condition && !edge.expression)
      issues.push({
        path: ['edges', index, 'condition'],
        message: 'a global transition needs a condition or an expression',
      });
    if (edge.expression !== undefined) {
      try {
        const unknown = expressionVariables(parseExpression(edge.expression)).filter((name) => !variables.has(name));
        if (unknown.length)
          issues.push({
            path: ['edges', index, 'expression'],
            message: `${unknown[0]} is not a variable of the flow (extracted by a node, or fetched before the call)`,
          });
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        issues.push({ path: ['edges', index, 'expression'], message: `invalid expression: ${error.message}` });
      }
    }
  });

  if (start) {
    const reachable = reachableFrom(flow, start.id);
    nodes.forEach((node, index) => {
      if (node.type !== 'globalNode' && !reachable.has(node.id) && byId.get(node.id) === node)
        issues.push({ path: ['nodes', index], message: `node ${node.id} cannot be reached from the start` });
    });
    if (!nodes.some((node) => node.type === 'endCall' && reachable.has(node.id)))
      issues.push({ path: ['nodes'], message: 'no endCall node can be reached from the start' });
  }
  return issues;
}

/** The nodes a call can reach from `startId`: along edges, and by the global transitions from any step. */
export function reachableFrom(flow: FlowDefinition, startId: string): Set<string> {
  const globalIds = new Set(flow.nodes.filter((node) => node.type === 'globalNode').map((node) => node.id));
  const seen = new Set<string>([startId]);
  const queue = [startId, ...flow.edges.filter((edge) => globalIds.has(edge.source)).map((edge) => edge.target)];
  for (const id of queue) seen.add(id);
  while (queue.length) {
    const id = queue.shift()!;
    for (const edge of flow.edges)
      if (edge.source === id && !seen.has(edge.target)) {
        seen.add(edge.target);
        queue.push(edge.target);
      }
  }
  return seen;
}

/** One step of a call's path through its flow (the run's `flow`). */
export interface FlowPathStep {
  node_id: string;
  name: string;
  entered_at: string;
  left_at: string | null;
  /** The edge the call left by, and why (the condition the model chose, or the variable test). */
  edge: { source: string; target: string; label?: string } | null;
  reason: string | null;
}

/**
 * A flow's path across a transfer nobody took: the agent's first part, which ended at the transfer
 * step (left when the agent took the call back), then the part after it, from the start step again.
 */
export function pathAfterTakeBack(
  before: FlowPathStep[] | null,
  after: FlowPathStep[] | null,
  transfer: { outcome?: string; resumed_at?: string },
): FlowPathStep[] | null {
  if (!before?.length) return after;
  const earlier = before.map((step) => ({ ...step }));
  const last = earlier.at(-1)!;
  if (last.left_at === null) {
    last.left_at = transfer.resumed_at ?? after?.[0]?.entered_at ?? null;
    last.reason = `nobody took the transfer (${transfer.outcome ?? 'failed'}); the agent took the call back`;
  }
  return [...earlier, ...(after ?? [])];
}
