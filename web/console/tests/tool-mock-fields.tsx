/** A test case's HTTP-tool mocks as form rows (the tool, the status, what it answers), and to the API's shape. */
import type { Schemas } from '../lib/api.ts';

export type ToolMock = Schemas['ToolMock'];

/** One row as typed: the answer is text, read as JSON when it is JSON. */
export interface ToolMockDraft {
  tool: string;
  status: string;
  body: string;
}

export const newMockDraft = (): ToolMockDraft => ({ tool: '', status: '200', body: '' });

/** What the tool answers, as typed: JSON when it reads as JSON (an object, a number), else the text itself. */
function typedBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export const toToolMock = (draft: ToolMockDraft): ToolMock => ({
  tool: draft.tool.trim(),
  status: Number(draft.status),
  body: typedBody(draft.body.trim()),
});

/** A stored mock back into a form row (a case edited). */
export const toMockDraft = (mock: ToolMock): ToolMockDraft => ({
  tool: mock.tool,
  status: String(mock.status ?? 200),
  body: typeof mock.body === 'string' ? mock.body : mock.body === undefined ? '' : JSON.stringify(mock.body),
});

/** One row: `n` numbers it in the labels; `tools` are the agent's tools' names, offered as the tool typed. */
export function ToolMockRow({
  n,
  draft,
  tools,
  onChange,
  onRemove,
}: {
  n: number;
  draft: ToolMockDraft;
  tools: readonly string[];
  onChange: (draft: ToolMockDraft) => void;
  onRemove: () => void;
}) {
  const id = `tool-mock-${n}`;
  return (
    <fieldset class="expectation">
      <legend>Mock {n}</legend>
      <label for={`${id}-tool`}>Mock {n}: tool</label>
      <select
        id={`${id}-tool`}
        required
        value={draft.tool}
        onChange={(e) => onChange({ ...draft, tool: e.currentTarget.value })}
      >
        <option value="">Choose a tool</option>
        {/* A stored mock's tool the agent has since lost stays choosable: the API then says what is wrong. */}
        {[...new Set([...tools, ...(draft.tool ? [draft.tool] : [])])].map((tool) => (
          <option key={tool} value={tool}>
            {tool}
          </option>
        ))}
      </select>
      <label for={`${id}-status`}>Mock {n}: HTTP status</label>
      <input
        id={`${id}-status`}
        type="number"
        required
        min={100}
        max={599}
        value={draft.status}
        onInput={(e) => onChange({ ...draft, status: e.currentTarget.value })}
      />
      <label for={`${id}-body`}>Mock {n}: what it answers (JSON or text)</label>
      <textarea
        id={`${id}-body`}
        rows={2}
        value={draft.body}
        onInput={(e) => onChange({ ...draft, body: e.currentTarget.value })}
      />
      <button type="button" class="secondary" onClick={onRemove}>
        Remove mock {n}
      </button>
    </fieldset>
  );
}
