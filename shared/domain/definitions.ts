/**
 * Definition versions: every saved `workflow_definition` is an immutable version of its agent.
 * Its status follows from two facts: whether it was ever published, and whether it is the agent's
 * `current_definition_id`.
 */
export const DEFINITION_STATUSES = ['draft', 'published', 'current'] as const;
export type DefinitionStatus = (typeof DEFINITION_STATUSES)[number];

export function definitionStatus(
  version: { id: number; published_at: string | null },
  currentDefinitionId: number,
): DefinitionStatus {
  if (version.id === currentDefinitionId) return 'current';
  return version.published_at === null ? 'draft' : 'published';
}
