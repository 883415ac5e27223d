/**
 * How a call moves through a flow (flows.ts): which edges leave a step, which the model is offered
 * as functions, which a variable test takes, and the rule that a step's own edges wait for its
 * variables. Global transitions (edges out of the globalNode) are offered in every step and do not
 * wait. Pure: the flow brain (media/src/call/flow-brain.ts) applies them.
 */
import { holds, parseExpression } from './flow-expressions.ts';
import { extractedBy, type FlowDefinition, type FlowEdge, type FlowNode } from './flows.ts';

/** An edge the call may take from its current step. */
export interface Transition {
  edge: FlowEdge;
  /** An edge out of the globalNode (from any step). */
  global: boolean;
  /** The function the model calls to take it (model-judged edges). */
  functionName: string;
}

/** Why an edge was taken, as the run shows it. */
export interface TakenTransition {
  edge: FlowEdge;
  reason: string;
}

export const nodeById = (flow: FlowDefinition, id: string): FlowNode | undefined =>
  flow.nodes.find((node) => node.id === id);

export const startNode = (flow: FlowDefinition): FlowNode => flow.nodes.find((node) => node.type === 'startCall')!;

/** The step's variables not gathered yet. */
export function missingVariables(node: FlowNode, gathered: Record<string, unknown>): string[] {
  return extractedBy(node)
    .map((variable) => variable.name)
    .filter((name) => gathered[name] === undefined || gathered[name] === null);
}

/** The edges out of `nodeId`, then the global ones, each with the function name the model calls. */
export function transitionsFrom(flow: FlowDefinition, nodeId: string): Transition[] {
  const globalIds = new Set(flow.nodes.filter((node) => node.type === 'globalNode').map((node) => node.id));
  const own = flow.edges.filter((edge) => edge.source === nodeId).map((edge) => ({ edge, global: false }));
  const global = flow.edges.filter((edge) => globalIds.has(edge.source)).map((edge) => ({ edge, global: true }));
  const used = new Set<string>();
  return [...own, ...global]
    .filter(({ edge }) => edge.target !== nodeId)
    .map((transition) => {
      const base = `go_to_${transition.edge.target}`;
      let functionName = base;
      for (let n = 2; used.has(functionName); n++) functionName = `${base}_${n}`;
      used.add(functionName);
      return { ...transition, functionName };
    });
}

/** May the call leave by this transition now: a step's own edges wait for its variables. */
export const mayTake = (transition: Transition, node: FlowNode, gathered: Record<string, unknown>): boolean =>
  transition.global || missingVariables(node, gathered).length === 0;

/**
 * The edge a variable test takes, checked before the model is asked: the first edge (own, then
 * global) without a condition in words whose expression holds, or that has neither (taken once the
 * step's variables are gathered). Null when none.
 */
export function deterministicTransition(
  flow: FlowDefinition,
  node: FlowNode,
  gathered: Record<string, unknown>,
): TakenTransition | null {
  for (const transition of transitionsFrom(flow, node.id)) {
    const { edge } = transition;
    if (edge.condition || !mayTake(transition, node, gathered)) continue;
    if (edge.expression === undefined) return { edge, reason: 'the step was complete' };
    if (holds(parseExpression(edge.expression), gathered)) return { edge, reason: `${edge.expression} held` };
  }
  return null;
}

/** The model-judged edges offered in a step: those with a condition in words. */
export const modelTransitions = (flow: FlowDefinition, nodeId: string): Transition[] =>
  transitionsFrom(flow, nodeId).filter((transition) => transition.edge.condition);

/**
 * The model called a transition's function: taken, or the reason it is not (for the model). An
 * edge with both a condition and an expression needs the expression to hold too.
 */
export function chooseTransition(
  transition: Transition,
  node: FlowNode,
  gathered: Record<string, unknown>,
): TakenTransition | { refused: string } {
  const missing = missingVariables(node, gathered);
  if (!mayTake(transition, node, gathered))
    return { refused: `first extract ${missing.join(', ')} with save_variables` };
  const { edge } = transition;
  if (edge.expression !== undefined && !holds(parseExpression(edge.expression), gathered))
    return { refused: `${edge.expression} does not hold for what was gathered` };
  return {
    edge,
    reason: `${transition.global ? 'global transition: ' : ''}the model judged "${edge.condition}"${edge.expression ? ` and ${edge.expression} held` : ''}`,
  };
}

/** A value the model gave for a variable, as its type wants it; undefined when it is not one. */
export function coerceVariable(
  type: 'string' | 'number' | 'boolean',
  value: unknown,
): string | number | boolean | undefined {
  if (value === null || value === undefined) return undefined;
  if (type === 'number') {
    const number = typeof value === 'number' ? value : Number(String(value).trim());
    return Number.isFinite(number) && String(value).trim() !== '' ? number : undefined;
  }
  if (type === 'boolean') {
    if (typeof value === 'boolean') return value;
    const word = String(value).trim().toLowerCase();
    return word === 'true' || word === 'yes' ? true : word === 'false' || word === 'no' ? false : undefined;
  }
  const text = String(value).trim();
  return text ? text.slice(0, 1000) : undefined;
}
