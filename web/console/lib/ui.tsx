/** Small pieces every console page uses: the API's error, a pager, a labelled input, a JSON field. */
import type { ComponentChildren, JSX } from 'preact';
import { useState } from 'preact/hooks';

export function ErrorLine({ error }: { error: unknown }) {
  return <p role="alert">{error ? (error as Error).message : ''}</p>;
}

/** A table of rows under a labelled header ('' heads a column of buttons). */
export function Table({ label, columns, children }: { label: string; columns: string[]; children: ComponentChildren }) {
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          {columns.map((column, index) => (
            <th key={`${column}${index}`}>{column}</th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

export function Pager({
  page,
  totalPages,
  onPage,
  label,
}: {
  page: number;
  totalPages: number;
  onPage: (page: number) => void;
  label: string;
}) {
  return (
    <div class="actions" role="navigation" aria-label={`Pages of ${label}`}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous page
      </button>
      <span>
        Page {page} of {Math.max(1, totalPages)}
      </span>
      <button type="button" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        Next page
      </button>
    </div>
  );
}

/** A text input under its label; other attributes (`required`, `maxLength`, `type`, `min`) are the input's. */
export function LabelledInput({
  id,
  label,
  value,
  onValue,
  ...input
}: {
  id: string;
  label: string;
  value: string;
  onValue: (value: string) => void;
} & Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'onInput'>) {
  return (
    <>
      <label for={id}>{label}</label>
      <input {...input} id={id} value={value} onInput={(e) => onValue(e.currentTarget.value)} />
    </>
  );
}

/** A JSON object edited as text: `onValid` gets the parsed object, a parse error is shown beside it. */
export function JsonField({
  id,
  label,
  value,
  onValid,
}: {
  id: string;
  label: string;
  value: Record<string, unknown>;
  onValid: (value: Record<string, unknown> | null) => void;
}) {
  const [text, setText] = useState(JSON.stringify(value, null, 2));
  const [problem, setProblem] = useState('');
  const change = (next: string) => {
    setText(next);
    try {
      const parsed: unknown = JSON.parse(next);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('must be an object');
      setProblem('');
      onValid(parsed as Record<string, unknown>);
    } catch (failure) {
      setProblem(`${label}: ${(failure as Error).message}`);
      onValid(null);
    }
  };
  return (
    <>
      <label for={id}>{label} (JSON)</label>
      <textarea id={id} rows={6} spellcheck={false} value={text} onInput={(e) => change(e.currentTarget.value)} />
      <p role="alert">{problem}</p>
    </>
  );
}

/** A form's submit handler that runs `action` instead of navigating. */
export const onSubmitRun =
  (action: () => void) =>
  (event: Event): void => {
    event.preventDefault();
    action();
  };

export const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : '');
