/** The expectations of a test case as form rows (a kind, then its own fields), and to the API's shape. */
import type { Schemas } from '../lib/api.ts';

export type Expectation = Schemas['CreateTestCaseRequest']['expectations'][number];

/** One row of the form: what every kind needs is a text, a yes/no and (a variable's) a value. */
export interface ExpectationDraft {
  type: Expectation['type'];
  text: string;
  flag: boolean;
  value: string;
}

interface Kind {
  label: string;
  /** The text field's label; none: the kind has no text. */
  text?: string;
  /** The yes/no field's label; none: the kind has no such choice. */
  flag?: string;
}

export const KINDS: Record<Expectation['type'], Kind> = {
  phrase_said: { label: 'The agent says a phrase', text: 'Phrase', flag: 'Must be said (unticked: never said)' },
  judged: { label: 'Judged by the model', text: 'Criteria in words' },
  disposition: { label: 'Ends with a disposition', text: 'Disposition code' },
  step_reached: { label: 'Reaches a flow step', text: 'Step id', flag: 'Must be reached (unticked: never)' },
  tool_called: { label: 'Calls a tool', text: 'Tool name', flag: 'Must be called (unticked: never)' },
  variable_gathered: { label: 'Gathers a variable', text: 'Variable name' },
  ended_by_agent: { label: 'The agent ends the conversation', flag: 'Ended by the agent (unticked: not)' },
  max_turns: { label: 'At most N caller turns', text: 'Turns' },
};

export const newDraft = (type: Expectation['type'] = 'phrase_said'): ExpectationDraft => ({
  type,
  text: '',
  flag: true,
  value: '',
});

/** A value typed in the form: JSON when it reads as JSON (42, true), else the text itself. */
function typedValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function toExpectation(draft: ExpectationDraft): Expectation {
  const text = draft.text.trim();
  switch (draft.type) {
    case 'phrase_said':
      return { type: 'phrase_said', phrase: text, said: draft.flag };
    case 'judged':
      return { type: 'judged', criteria: text };
    case 'disposition':
      return { type: 'disposition', code: text };
    case 'step_reached':
      return { type: 'step_reached', step: text, reached: draft.flag };
    case 'tool_called':
      return { type: 'tool_called', tool: text, called: draft.flag };
    case 'variable_gathered':
      return draft.value.trim()
        ? { type: 'variable_gathered', variable: text, value: typedValue(draft.value.trim()) }
        : { type: 'variable_gathered', variable: text };
    case 'ended_by_agent':
      return { type: 'ended_by_agent', ended: draft.flag };
    case 'max_turns':
      return { type: 'max_turns', turns: Number(text) };
  }
}

/** A stored expectation back into a form row (a case drafted from a call, or edited). */
export function toDraft(expectation: Expectation): ExpectationDraft {
  const e = expectation as Record<string, unknown>;
  const text = e.phrase ?? e.criteria ?? e.code ?? e.step ?? e.tool ?? e.variable ?? e.turns ?? '';
  const flag = e.said ?? e.reached ?? e.called ?? e.ended ?? true;
  return {
    type: expectation.type,
    text: String(text),
    flag: flag !== false,
    value: e.value === undefined ? '' : typeof e.value === 'string' ? e.value : JSON.stringify(e.value),
  };
}

/** One row: its kind, then the fields the kind has. `n` numbers it in the labels. */
export function ExpectationRow({
  n,
  draft,
  onChange,
  onRemove,
}: {
  n: number;
  draft: ExpectationDraft;
  onChange: (draft: ExpectationDraft) => void;
  onRemove: () => void;
}) {
  const kind = KINDS[draft.type];
  const id = `expectation-${n}`;
  return (
    <fieldset class="expectation">
      <legend>Expectation {n}</legend>
      <label for={`${id}-type`}>Expectation {n}: kind</label>
      <select
        id={`${id}-type`}
        value={draft.type}
        onChange={(e) => onChange({ ...draft, type: e.currentTarget.value as Expectation['type'] })}
      >
        {Object.entries(KINDS).map(([type, { label }]) => (
          <option key={type} value={type}>
            {label}
          </option>
        ))}
      </select>
      {kind.text && (
        <>
          <label for={`${id}-text`}>
            Expectation {n}: {kind.text.toLowerCase()}
          </label>
          {draft.type === 'judged' ? (
            <textarea
              id={`${id}-text`}
              required
              rows={2}
              value={draft.text}
              onInput={(e) => onChange({ ...draft, text: e.currentTarget.value })}
            />
          ) : (
            <input
              id={`${id}-text`}
              required
              type={draft.type === 'max_turns' ? 'number' : 'text'}
              min={1}
              value={draft.text}
              onInput={(e) => onChange({ ...draft, text: e.currentTarget.value })}
            />
          )}
        </>
      )}
      {draft.type === 'variable_gathered' && (
        <>
          <label for={`${id}-value`}>Expectation {n}: with the value (empty: any)</label>
          <input
            id={`${id}-value`}
            value={draft.value}
            onInput={(e) => onChange({ ...draft, value: e.currentTarget.value })}
          />
        </>
      )}
      {kind.flag && (
        <label class="inline">
          <input
            type="checkbox"
            checked={draft.flag}
            onChange={(e) => onChange({ ...draft, flag: e.currentTarget.checked })}
          />{' '}
          {kind.flag}
        </label>
      )}
      <button type="button" class="secondary" onClick={onRemove}>
        Remove expectation {n}
      </button>
    </fieldset>
  );
}
