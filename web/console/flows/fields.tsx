/**
 * The side panel's form fields: text, a yes/no, a pick among names, the variables to extract, a
 * start step's pre-call fetch.
 */
import { type FlowVariable, type PreCallFetch, preCallFetch } from './model.ts';

/** A text field; empty means "not set" (`undefined`), as the API's optional fields are. */
export function TextField({
  id,
  label,
  value,
  onChange,
  rows,
  hint,
}: {
  id: string;
  label: string;
  value: string | undefined;
  onChange: (value: string | undefined) => void;
  rows?: number;
  hint?: string;
}) {
  const change = (text: string) => onChange(text === '' ? undefined : text);
  return (
    <>
      <label for={id}>{label}</label>
      {rows ? (
        <textarea id={id} rows={rows} value={value ?? ''} onInput={(e) => change(e.currentTarget.value)} />
      ) : (
        <input id={id} value={value ?? ''} onInput={(e) => change(e.currentTarget.value)} />
      )}
      {hint && <small>{hint}</small>}
    </>
  );
}

/** Names picked among those the agent has (its tools, its documents); none known: a note instead. */
export function PickField({
  legend,
  options,
  picked,
  onChange,
  none,
}: {
  legend: string;
  options: { value: string; label: string }[];
  picked: string[] | undefined;
  onChange: (picked: string[] | undefined) => void;
  none: string;
}) {
  const chosen = new Set(picked ?? []);
  const toggle = (value: string, on: boolean) => {
    const next = options.map((option) => option.value).filter((name) => (name === value ? on : chosen.has(name)));
    onChange(next.length ? next : undefined);
  };
  return (
    <fieldset>
      <legend>{legend}</legend>
      {options.length === 0 && <p>{none}</p>}
      {options.map((option) => (
        <label class="inline" key={option.value}>
          <input
            type="checkbox"
            checked={chosen.has(option.value)}
            onChange={(e) => toggle(option.value, e.currentTarget.checked)}
          />{' '}
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}

const VARIABLE_TYPES: FlowVariable['type'][] = ['string', 'number', 'boolean'];

/** The variables a step extracts: name, type and a hint each, added and removed by buttons. */
export function VariablesField({
  id,
  legend,
  variables,
  onChange,
}: {
  id: string;
  legend: string;
  variables: FlowVariable[] | undefined;
  onChange: (variables: FlowVariable[] | undefined) => void;
}) {
  const list = variables ?? [];
  const set = (index: number, variable: FlowVariable) =>
    onChange(list.map((current, position) => (position === index ? variable : current)));
  return (
    <fieldset>
      <legend>{legend}</legend>
      {list.map((variable, index) => (
        <div class="flow-variable" key={index}>
          <label for={`${id}-${index}-name`}>Variable {index + 1}: name</label>
          <input
            id={`${id}-${index}-name`}
            value={variable.name}
            onInput={(e) => set(index, { ...variable, name: e.currentTarget.value })}
          />
          <label for={`${id}-${index}-type`}>Variable {index + 1}: type</label>
          <select
            id={`${id}-${index}-type`}
            value={variable.type}
            onChange={(e) => set(index, { ...variable, type: e.currentTarget.value as FlowVariable['type'] })}
          >
            {VARIABLE_TYPES.map((type) => (
              <option key={type}>{type}</option>
            ))}
          </select>
          <label for={`${id}-${index}-hint`}>Variable {index + 1}: hint for the model</label>
          <input
            id={`${id}-${index}-hint`}
            value={variable.hint ?? ''}
            onInput={(e) => {
              const { hint: _hint, ...rest } = variable;
              set(index, e.currentTarget.value ? { ...rest, hint: e.currentTarget.value } : rest);
            }}
          />
          <button
            type="button"
            class="secondary"
            onClick={() => {
              const next = list.filter((_, position) => position !== index);
              onChange(next.length ? next : undefined);
            }}
          >
            Remove variable {index + 1}
          </button>
        </div>
      ))}
      <button type="button" class="secondary" onClick={() => onChange([...list, { name: '', type: 'string' }])}>
        Add a variable
      </button>
    </fieldset>
  );
}

/**
 * A start step's pre-call fetch: the URL fetched as the call starts and the keys of its JSON answer
 * that become variables. The names are read when the field is left (typing a comma keeps it).
 */
export function PreCallFetchField({
  id,
  value,
  onChange,
}: {
  id: string;
  value: PreCallFetch | undefined;
  onChange: (value: PreCallFetch | undefined) => void;
}) {
  const names = value?.variables.join(', ') ?? '';
  return (
    <fieldset>
      <legend>Pre-call fetch (variables from a JSON answer, fetched as the call starts)</legend>
      <TextField
        id={`${id}-url`}
        label="URL"
        value={value?.url || undefined}
        onChange={(url) => onChange(preCallFetch(url, names))}
        hint="{{initial_context.<key>}} is filled in; empty: no fetch"
      />
      <label for={`${id}-variables`}>Keys of the answer that become variables</label>
      <input
        id={`${id}-variables`}
        value={names}
        onChange={(e) => onChange(preCallFetch(value?.url || undefined, e.currentTarget.value))}
      />
      <small>Names separated by commas, e.g. balance, plan</small>
    </fieldset>
  );
}
