import { RequestValidationError } from './validation-error.ts';

/** What FastAPI hands to body validation: `undefined` for no body at all. */
export type RawBody = { kind: 'absent' } | { kind: 'json'; value: unknown } | { kind: 'raw'; text: string };

/**
 * V8's JSON.parse messages, translated into Python's `json` module wording, which FastAPI puts in
 * `ctx.error`. Order matters: the first matching pattern wins.
 */
const PYTHON_JSON_MESSAGES: [RegExp, string][] = [
  [
    /Expected property name or '}'|Expected double-quoted property name/,
    'Expecting property name enclosed in double quotes',
  ],
  [/Expected ':' after property name/, "Expecting ':' delimiter"],
  [/Expected ',' or '[}\]]'/, "Expecting ',' delimiter"],
  [/Unexpected non-whitespace character after JSON/, 'Extra data'],
  [/Unterminated string/, 'Unterminated string starting at'],
  [/Bad control character/, 'Invalid control character at'],
  [/Bad escaped character|Bad Unicode escape/, 'Invalid \\escape'],
];

const END_OF_INPUT = /Unexpected end of JSON input/;

/** True when the text fails before its end (an error naming its last offset counts as the end). */
const failsBeforeEnd = (text: string): boolean => {
  try {
    JSON.parse(text);
    return false;
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message);
    return !END_OF_INPUT.test(message) && (!position || Number(position[1]) < text.length);
  }
};

/**
 * Python reports the offset of the offending character. V8 names it in most messages; when it
 * does not ("Unexpected token"), it is found by binary search: JSON is read left to right, so a
 * prefix fails before its end exactly when it includes that character (O(n log n), safe on large
 * bodies). Like Python, a misspelt literal (`tru`, `nope`) is reported where the value starts.
 */
function decodeErrorPosition(message: string, text: string): number {
  const match = /at position (\d+)/.exec(message);
  if (match) return Number(match[1]);
  if (END_OF_INPUT.test(message)) return text.length;
  let low = 1;
  let high = text.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (failsBeforeEnd(text.slice(0, middle))) high = middle;
    else low = middle + 1;
  }
  let position = low - 1;
  while (position > 0 && /[a-zA-Z]/.test(text[position - 1]!)) position -= 1;
  return position;
}

export function pythonJsonError(message: string): string {
  return PYTHON_JSON_MESSAGES.find(([pattern]) => pattern.test(message))?.[1] ?? 'Expecting value';
}

function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return true;
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  const [main, sub = ''] = mediaType.split('/');
  return main === 'application' && (sub === 'json' || sub.endsWith('+json'));
}

/**
 * Reads a request body the way FastAPI does: no bytes means no body; JSON is decoded when the
 * content type is absent or JSON; any other content type is passed on as text (and then fails
 * model validation, as in FastAPI). Malformed JSON is a 422 `json_invalid`, never a 5xx.
 */
export function readJsonBody(text: string | null | undefined, contentType: string | undefined): RawBody {
  if (!text) return { kind: 'absent' };
  if (!isJsonContentType(contentType)) return { kind: 'raw', text };
  try {
    return { kind: 'json', value: JSON.parse(text) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new RequestValidationError([
      {
        type: 'json_invalid',
        loc: ['body', decodeErrorPosition(message, text)],
        msg: 'JSON decode error',
        input: {},
        ctx: { error: pythonJsonError(message) },
      },
    ]);
  }
}
