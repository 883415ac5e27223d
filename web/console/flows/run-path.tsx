/**
 * A call's path through its flow, on the call's page: the version the run executed (its
 * `definition_id`), drawn read-only with the editor's graph, the steps it entered numbered and the
 * transitions it took marked, and the same path as a list with why each step was left.
 */
import { useQuery } from '@tanstack/preact-query';
import { useMemo } from 'preact/hooks';
import { answer, type Schemas, useApi } from '../lib/api.ts';
import { ErrorLine } from '../lib/ui.tsx';
import { FlowGraph, type PathShown } from './graph.tsx';
import { editable, type FlowDefinition, isFlow } from './model.ts';

type PathStep = Schemas['FlowPathStep'];

export const pathShown = (steps: PathStep[]): PathShown => ({
  nodes: steps.map((step) => step.node_id),
  edges: new Set(steps.flatMap((step) => (step.edge ? [`${step.edge.source}→${step.edge.target}`] : []))),
});

export function RunPath({
  agentId,
  definitionId,
  steps,
}: {
  agentId: string;
  definitionId: number;
  steps: PathStep[];
}) {
  const api = useApi();
  const version = useQuery({
    queryKey: ['definition', agentId, definitionId],
    queryFn: () =>
      answer(
        api.GET('/agents/{agent_id}/definitions/{definition_id}', {
          params: { path: { agent_id: agentId, definition_id: definitionId } },
        }),
      ),
  });
  const flow = useMemo(() => {
    const definition = version.data?.workflow_definition as Record<string, unknown> | undefined;
    return definition && isFlow(definition) ? editable(definition as FlowDefinition) : null;
  }, [version.data]);
  const path = useMemo(() => pathShown(steps), [steps]);
  return (
    <section aria-labelledby="run-path-title">
      <h3 id="run-path-title">Path through the flow (version #{definitionId})</h3>
      <ErrorLine error={version.error} />
      {flow && <FlowGraph label="The flow, with the path the call took" flow={flow} path={path} />}
      <ol aria-label="Path through the flow">
        {steps.map((step, index) => (
          <li key={`${step.node_id}${index}`}>
            <strong>{step.name}</strong>
            {step.reason ? ` — left because ${step.reason}` : ''}
          </li>
        ))}
      </ol>
    </section>
  );
}
