/**
 * What changed between two definitions, in words: steps added, removed or changed (field by field,
 * old → new), transitions likewise (a transition is known by the two steps it joins), the flow's
 * closing. Positions on the canvas are not changes a call would notice, so they are left out. A
 * flat definition is compared key by key.
 */
import { isFlow, type FlowDefinition, type FlowEdge, type FlowNode } from './model.ts';

const SHORT = 80;

function shown(value: unknown): string {
  if (value === undefined) return '(none)';
  if (typeof value === 'string') return `“${value.length > SHORT ? `${value.slice(0, SHORT - 1)}…` : value}”`;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value))
    return value.length === 0
      ? '(none)'
      : value
          .map((item) =>
            typeof item === 'object' && item !== null && 'name' in item
              ? `${String(item.name)}${'type' in item ? ` (${String(item.type)})` : ''}`
              : String(item),
          )
          .join(', ');
  return JSON.stringify(value);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** `label: old → new` for each key of the two objects that differs (`position` aside). */
function fieldChanges(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => key !== 'position');
  return keys
    .filter((key) => !same(before[key], after[key]))
    .map((key) => `${key}: ${shown(before[key])} → ${shown(after[key])}`);
}

const nodeTitle = (node: FlowNode) => `step “${node.name}”`;
const edgeId = (edge: FlowEdge) => `${edge.source}→${edge.target}`;

function flowChanges(before: FlowDefinition, after: FlowDefinition): string[] {
  // The flow's own closing (the caller ending the call in any step).
  const lines = same(before.closing, after.closing)
    ? []
    : [`Changed the flow's closing: ${shown(before.closing)} → ${shown(after.closing)}`];
  const beforeNodes = new Map(before.nodes.map((node) => [node.id, node]));
  const afterNodes = new Map(after.nodes.map((node) => [node.id, node]));
  const nameOf = (id: string) => (afterNodes.get(id) ?? beforeNodes.get(id))?.name ?? id;
  const edgeTitle = (edge: FlowEdge) => `transition “${nameOf(edge.source)}” → “${nameOf(edge.target)}”`;
  for (const node of after.nodes) if (!beforeNodes.has(node.id)) lines.push(`Added ${nodeTitle(node)} (${node.type})`);
  for (const node of before.nodes) if (!afterNodes.has(node.id)) lines.push(`Removed ${nodeTitle(node)}`);
  for (const node of after.nodes) {
    const old = beforeNodes.get(node.id);
    if (old)
      for (const change of fieldChanges(old, node))
        lines.push(`Changed ${nodeTitle(old.name === node.name ? node : old)}: ${change}`);
  }
  const beforeEdges = new Map(before.edges.map((edge) => [edgeId(edge), edge]));
  const afterEdges = new Map(after.edges.map((edge) => [edgeId(edge), edge]));
  for (const edge of after.edges) {
    const old = beforeEdges.get(edgeId(edge));
    if (!old) lines.push(`Added ${edgeTitle(edge)}${edge.condition || edge.expression ? describeEdge(edge) : ''}`);
    else for (const change of fieldChanges(old, edge)) lines.push(`Changed ${edgeTitle(edge)}: ${change}`);
  }
  for (const edge of before.edges) if (!afterEdges.has(edgeId(edge))) lines.push(`Removed ${edgeTitle(edge)}`);
  return lines;
}

const describeEdge = (edge: FlowEdge) =>
  [edge.condition && ` when ${shown(edge.condition)}`, edge.expression && ` if ${edge.expression}`]
    .filter(Boolean)
    .join(' and');

/** The changes from `before` to `after`, one sentence each; empty when they do the same. */
export function definitionChanges(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const beforeIsFlow = isFlow(before);
  const afterIsFlow = isFlow(after);
  if (beforeIsFlow && afterIsFlow) return flowChanges(before as FlowDefinition, after as FlowDefinition);
  if (!beforeIsFlow && afterIsFlow)
    return [`A flat prompt became a flow of ${(after as FlowDefinition).nodes.length} steps`];
  if (beforeIsFlow && !afterIsFlow)
    return [`A flow of ${(before as FlowDefinition).nodes.length} steps became a flat prompt`];
  return fieldChanges(before, after).map((change) => `Changed ${change}`);
}
