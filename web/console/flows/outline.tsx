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
  const steps = flow.nodes.map((node) => ({
    key: node.id,
    selection: { node: node.id },
    text: node.name,
    note: typeTitle(node.type),
  }));
  const transitions = flow.edges.map((edge) => ({
    key: edge.key,
    selection: { edge: edge.key },
    text: `${name(edge.source)} → ${name(edge.target)}`,
    note: edge.label ?? edge.condition ?? edge.expression ?? 'once the step is complete',
  }));
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
      {[
        { id: 'flow-steps-title', title: 'Steps', items: steps },
        { id: 'flow-transitions-title', title: 'Transitions', items: transitions },
      ].map((list) => (
        <SelectionList key={list.id} {...list} current={current} onSelect={onSelect} />
      ))}
    </div>
  );
}

/** A titled list of what the canvas draws (steps, or transitions), each a button that selects it, with a note. */
function SelectionList({
  id,
  title,
  items,
  current,
  onSelect,
}: {
  id: string;
  title: string;
  items: { key: string; selection: Selection; text: string; note: string }[];
  current: (candidate: Selection) => 'true' | undefined;
  onSelect: (selection: Selection) => void;
}) {
  return (
    <>
      <h4 id={id}>{title}</h4>
      <ul aria-labelledby={id}>
        {items.map((item) => (
          <li key={item.key}>
            <button
              type="button"
              class="link"
              aria-current={current(item.selection)}
              onClick={() => onSelect(item.selection)}
            >
              {item.text}
            </button>{' '}
            <small>{item.note}</small>
          </li>
        ))}
      </ul>
    </>
  );
}
