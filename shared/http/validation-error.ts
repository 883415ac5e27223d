/**
 * FastAPI's 422 body (Pydantic v2 error items). Existing clients parse it, so the `type` codes and
 * `msg` templates follow `../shared/reference/fastapi-422.md` to the letter.
 */
export type LocationRoot = 'body' | 'query' | 'path' | 'header';
export type Loc = [LocationRoot, ...(string | number)[]];

export interface ValidationErrorItem {
  type: string;
  loc: Loc;
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** Thrown by request parsing; rendered as `422 {detail: items}`. */
export class RequestValidationError extends Error {
  constructor(readonly items: ValidationErrorItem[]) {
    super('Request validation failed');
    this.name = 'RequestValidationError';
  }
}

/** Pydantic joins literal choices as `'a', 'b' or 'c'`. */
export function pydanticChoices(values: readonly unknown[]): string {
  const quoted = values.map((value) => (typeof value === 'string' ? `'${value}'` : String(value)));
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

export const fieldRequired = (loc: Loc, input: unknown): ValidationErrorItem => ({
  type: 'missing',
  loc,
  msg: 'Field required',
  input,
});
