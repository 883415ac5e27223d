/**
 * The API's 422 for a flow, placed on the graph: each item's `loc`
 * (`["body","workflow_definition","nodes",3,"prompt"]`, `[…,"edges",1,"expression"]`) names a node
 * or an edge of the definition as it was sent; the editor shows the message on it and in a list.
 * The rules between the parts are also checked as the flow is edited, by the API's own function
 * (`lintFlow`, pure), so most problems show before saving.
 */
import { type FlowDefinition as DomainFlow, lintFlow } from '../../../shared/domain/flows.ts';
import { definitionOf, type EditedFlow } from './model.ts';

export interface FlowIssue {
  /** The node's id or the edge's key (the editor's), or null for the flow as a whole. */
  node: string | null;
  edge: string | null;
  /** The field inside it (`prompt`, `extract.0.name`), '' for the part itself. */
  field: string;
  message: string;
}

const NODE_TAGS = new Set(['startCall', 'agentNode', 'transferCall', 'endCall', 'globalNode']);

/** The items of a 422 body (`detail`), as issues on the nodes and edges of the flow that was sent. */
export function issuesOf(detail: unknown, sent: EditedFlow): FlowIssue[] {
  if (!Array.isArray(detail)) return [];
  return detail.map((item: { loc?: unknown[]; msg?: unknown }) => {
    const loc = Array.isArray(item.loc) ? item.loc : [];
    const message = String(item.msg ?? 'invalid').replace(/^Value error, /, '');
    const at = loc.indexOf('workflow_definition');
    const [part, index, ...rest] = at >= 0 ? loc.slice(at + 1) : [];
    // A discriminated union's error may name the node's type before the field (Pydantic's way).
    const field = rest.filter((step, position) => !(position === 0 && NODE_TAGS.has(String(step)))).join('.');
    if (part === 'nodes' && typeof index === 'number' && sent.nodes[index])
      return { node: sent.nodes[index].id, edge: null, field, message };
    if (part === 'edges' && typeof index === 'number' && sent.edges[index])
      return { node: null, edge: sent.edges[index].key, field, message };
    const where = at >= 0 ? loc.slice(at + 1).join('.') : loc.join('.');
    return { node: null, edge: null, field: where, message };
  });
}

export const issuesOfNode = (issues: FlowIssue[], id: string): FlowIssue[] =>
  issues.filter((issue) => issue.node === id);
export const issuesOfEdge = (issues: FlowIssue[], key: string): FlowIssue[] =>
  issues.filter((issue) => issue.edge === key);

/** An issue as a line: its field, then the API's message. */
export const issueText = (issue: FlowIssue): string =>
  issue.field ? `${issue.field}: ${issue.message}` : issue.message;

/** The rules between the parts, as the API checks them (shared/domain/flows.ts), on the flow as it is. */
export function checkedIssues(flow: EditedFlow): FlowIssue[] {
  const found = lintFlow(definitionOf(flow) as unknown as DomainFlow);
  return issuesOf(
    found.map((issue) => ({ loc: ['body', 'workflow_definition', ...issue.path], msg: issue.message })),
    flow,
  );
}

const apartFromPosition = (part: object | undefined) =>
  part && JSON.stringify({ ...part, position: undefined, key: undefined });

/**
 * The API's problems with the flow it was sent, and those checked on the flow as it is now, once
 * each: an API problem stays while the step or transition it concerns is as it was sent (moving it
 * aside), one with the whole flow while nothing changed.
 */
export function currentIssues(api: { issues: FlowIssue[]; sent: EditedFlow } | null, flow: EditedFlow): FlowIssue[] {
  const standing = (api?.issues ?? []).filter((issue) => {
    if (issue.node) {
      const find = (of: EditedFlow) => of.nodes.find((node) => node.id === issue.node);
      return apartFromPosition(find(flow)) === apartFromPosition(find(api!.sent));
    }
    if (issue.edge) {
      const find = (of: EditedFlow) => of.edges.find((edge) => edge.key === issue.edge);
      return find(flow) !== undefined && apartFromPosition(find(flow)) === apartFromPosition(find(api!.sent));
    }
    return flow === api!.sent;
  });
  const seen = new Set(standing.map((issue) => JSON.stringify(issue)));
  return [...standing, ...checkedIssues(flow).filter((issue) => !seen.has(JSON.stringify(issue)))];
}
