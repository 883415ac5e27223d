/**
 * "Try it": a conversation with the draft just saved (`definition_id` on the conversation). The
 * console's chat panel is wired here when the talk page joins the console; until then this links
 * to the talk page with the agent and the version chosen.
 */
export function TryIt({ agentId, definitionId }: { agentId: string; definitionId: number | null }) {
  if (definitionId === null)
    return (
      <button type="button" class="secondary" disabled>
        Try it (save a draft first)
      </button>
    );
  const query = new URLSearchParams({ agent: agentId, definition: String(definitionId) });
  return (
    <a class="button-link" href={`talk.html?${query}`}>
      Try it: talk to draft #{definitionId}
    </a>
  );
}
