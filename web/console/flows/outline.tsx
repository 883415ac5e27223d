/**
 * The flow as lists beside the canvas: every step and transition as a button that selects it, and
 * the problems (checked as the flow is edited, and the API's), each one a button to what it concerns. With the panel's buttons this
 * makes the editor usable without a mouse (and tells a screen reader what the canvas draws).
 */
import type { Selection } from './graph.tsx';
import { type FlowIssue, issueText } from './issues.ts';
import { type EditedFlow, typeTitle } from './model.ts';

export function Outline({
  flow,
  issues,
  selection,
  onSelect,
}: {
  flow: EditedFlow;
  issues: FlowIssue[];
  selection: Selection;
  onSelect: (selection: Selection) => void;
}) {
  const name = (id: string) => flow.nodes.find((node) => node.id === id)?.name ?? id;
  const current = (candidate: Selection) =>
    JSON.stringify(candidate) === JSON.stringify(selection) ? ('true' as const) : undefined;
  const placeOf = (issue: FlowIssue) => {
    if (issue.node) return `Step “${name(issue.node)}”`;
    const edge = issue.edge && flow.edges.find((candidate) => candidate.key === issue.edge);
    return edge ? `Transition “${name(edge.source)}” → “${name(edge.target)}”` : 'The flow';
  };
  return (
    <div class="flow-outline">
      {issues.length > 0 && (
        <>
          <h4 id="flow-problems-title">Problems</h4>
          <p>Checked as you edit, and by the API when the flow is saved.</p>
          <ul aria-labelledby="flow-problems-title" class="flow-problems">
            {issues.map((issue, index) => (
              <li key={index}>
                {issue.node || issue.edge ? (
                  <button
                    type="button"
                    class="link"
                    onClick={() => onSelect(issue.node ? { node: issue.node } : { edge: issue.edge! })}
                  >
                    {placeOf(issue)}
                  </button>
                ) : (
                  placeOf(issue)
                )}
                : {issueText(issue)}
              </li>
            ))}
          </ul>
        </>
      )}
      <h4 id="flow-steps-title">Steps</h4>
      <ul aria-labelledby="flow-steps-title">
        {flow.nodes.map((node) => (
          <li key={node.id}>
            <button
              type="button"
              class="link"
              aria-current={current({ node: node.id })}
              onClick={() => onSelect({ node: node.id })}
            >
              {node.name}
            </button>{' '}
            <small>{typeTitle(node.type)}</small>
          </li>
        ))}
      </ul>
      <h4 id="flow-transitions-title">Transitions</h4>
      <ul aria-labelledby="flow-transitions-title">
        {flow.edges.map((edge) => (
          <li key={edge.key}>
            <button
              type="button"
              class="link"
              aria-current={current({ edge: edge.key })}
              onClick={() => onSelect({ edge: edge.key })}
            >
              {name(edge.source)} → {name(edge.target)}
            </button>{' '}
            <small>{edge.label ?? edge.condition ?? edge.expression ?? 'once the step is complete'}</small>
          </li>
        ))}
      </ul>
    </div>
  );
}
