import { useState } from 'preact/hooks';
import { TalkPanel } from '../talk/TalkPanel.tsx';

/**
 * "Try it": a conversation with the draft just saved, in place (the console's talk panel with the
 * draft's `definition_id`), while callers and campaigns keep the current version.
 */
export function TryIt({ agentId, definitionId }: { agentId: string; definitionId: number | null }) {
  const [open, setOpen] = useState(false);
  if (definitionId === null)
    return (
      <button type="button" class="secondary" disabled>
        Try it (save a draft first)
      </button>
    );
  return (
    <>
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
        Try it: talk to draft #{definitionId}
      </button>
      {open && (
        <TalkPanel
          key={definitionId}
          agentId={agentId}
          definitionId={definitionId}
          title={`Try draft #${definitionId}`}
        />
      )}
    </>
  );
}
