import type { z } from 'zod';
import { InvalidInput } from './lax-coercion.ts';
import {
  fieldRequired,
  pydanticChoices,
  type Loc,
  type LocationRoot,
  type ValidationErrorItem,
} from './validation-error.ts';

type Issue = z.core.$ZodIssue;

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

function typeError(issue: Issue & { code: 'invalid_type' }, loc: Loc, input: unknown): ValidationErrorItem {
  const item = (type: string, msg: string): ValidationErrorItem => ({ type, loc, msg, input });
  switch (issue.expected) {
    case 'string':
      return item('string_type', 'Input should be a valid string');
    case 'record':
      return item('dict_type', 'Input should be a valid dictionary');
    case 'object':
      return item('model_attributes_type', 'Input should be a valid dictionary or object to extract fields from');
    case 'array':
      return item('list_type', 'Input should be a valid list');
    default:
      return item(`${String(issue.expected)}_type`, `Input should be a valid ${String(issue.expected)}`);
  }
}

function boundError(issue: Issue & { code: 'too_small' | 'too_big' }, loc: Loc, input: unknown): ValidationErrorItem {
  const small = issue.code === 'too_small';
  const limit = Number(
    small ? (issue as { minimum: number | bigint }).minimum : (issue as { maximum: number | bigint }).maximum,
  );
  if (issue.origin === 'string') {
    const type = small ? 'string_too_short' : 'string_too_long';
    const msg = `String should have ${small ? 'at least' : 'at most'} ${plural(limit, 'character')}`;
    return { type, loc, msg, input, ctx: small ? { min_length: limit } : { max_length: limit } };
  }
  if (issue.origin === 'array' || issue.origin === 'set') {
    const actual = Array.isArray(input) ? input.length : 0;
    const msg = `List should have ${small ? 'at least' : 'at most'} ${plural(limit, 'item')} after validation, not ${actual}`;
    return {
      type: small ? 'too_short' : 'too_long',
      loc,
      msg,
      input,
      ctx: { field_type: 'List', [small ? 'min_length' : 'max_length']: limit, actual_length: actual },
    };
  }
  const inclusive = issue.inclusive !== false;
  const [type, words, key] = small
    ? inclusive
      ? ['greater_than_equal', 'greater than or equal to', 'ge']
      : ['greater_than', 'greater than', 'gt']
    : inclusive
      ? ['less_than_equal', 'less than or equal to', 'le']
      : ['less_than', 'less than', 'lt'];
  return { type, loc, msg: `Input should be ${words} ${limit}`, input, ctx: { [key]: limit } };
}

function formatError(issue: Issue & { code: 'invalid_format' }, loc: Loc, input: unknown): ValidationErrorItem {
  if (issue.format === 'regex') {
    // Zod renders the pattern as a regex literal (/.../flags); Pydantic shows the bare source.
    const source = String((issue as { pattern?: string }).pattern ?? '').replace(/^\/(.*)\/[a-z]*$/s, '$1');
    return {
      type: 'string_pattern_mismatch',
      loc,
      msg: `String should match pattern '${source}'`,
      input,
      ctx: { pattern: source },
    };
  }
  if (issue.format === 'datetime') {
    const reason = typeof input === 'string' && input.length < 10 ? 'input is too short' : 'invalid datetime format';
    return {
      type: 'datetime_from_date_parsing',
      loc,
      msg: `Input should be a valid datetime or date, ${reason}`,
      input,
      ctx: { error: reason },
    };
  }
  return {
    type: 'value_error',
    loc,
    msg: `Value error, invalid ${issue.format}`,
    input,
    ctx: { error: issue.message },
  };
}

/**
 * A discriminated union (zod puts the issue at the tag) as Pydantic reports it: at the object,
 * `union_tag_not_found` without a tag, `union_tag_invalid` with an unknown one.
 */
function tagError(issue: Extract<Issue, { code: 'invalid_union' }>, loc: Loc, raw: unknown): ValidationErrorItem {
  const parentPath = issue.path.slice(0, -1);
  const objectLoc = loc.slice(0, -1) as Loc;
  const input = valueAt(raw, parentPath);
  const tag = valueAt(raw, issue.path);
  const discriminator = `'${issue.discriminator}'`;
  if (tag === undefined)
    return {
      type: 'union_tag_not_found',
      loc: objectLoc,
      msg: `Unable to extract tag using discriminator ${discriminator}`,
      input,
      ctx: { discriminator },
    };
  const options = (issue as { options?: unknown[] }).options ?? [];
  const expectedTags = options.map((option) => `'${String(option)}'`).join(', ');
  return {
    type: 'union_tag_invalid',
    loc: objectLoc,
    msg: `Input tag '${String(tag)}' found using ${discriminator} does not match any of the expected tags: ${expectedTags}`,
    input,
    ctx: { discriminator, tag: String(tag), expected_tags: expectedTags },
  };
}

/**
 * Maps one zod issue onto the Pydantic error item FastAPI would have produced. `data` is what was
 * validated (after lax coercion, with InvalidInput markers); `raw` is what the client sent, which
 * Pydantic echoes as `input` (a query or path value stays the string received).
 */
export function toFastApiItem(
  issue: Issue,
  root: LocationRoot,
  data: unknown,
  raw: unknown = data,
): ValidationErrorItem {
  const path = issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key));
  const loc: Loc = [root, ...path];
  const marker = valueAt(data, issue.path);
  if (marker instanceof InvalidInput) return { type: marker.type, loc, msg: marker.msg, input: marker.raw };
  const input = valueAt(raw, issue.path);
  if (issue.code === 'invalid_union' && issue.discriminator) return tagError(issue, loc, raw);
  // Pydantic reports an absent field as `missing` whatever its type (an enum too), with its parent
  // object as the input; rules on a present value (custom ones) keep their own item.
  if (input === undefined && issue.code !== 'custom')
    return fieldRequired(loc, path.length ? valueAt(raw, issue.path.slice(0, -1)) : null);

  switch (issue.code) {
    case 'invalid_type':
      return typeError(issue, loc, input);
    case 'too_small':
    case 'too_big':
      return boundError(issue, loc, input);
    case 'invalid_format':
      return formatError(issue, loc, input);
    case 'invalid_value': {
      const expected = pydanticChoices(issue.values);
      return { type: 'literal_error', loc, msg: `Input should be ${expected}`, input, ctx: { expected } };
    }
    case 'custom': {
      const fastapi = (issue.params as { fastapi?: Omit<ValidationErrorItem, 'loc' | 'input'> } | undefined)?.fastapi;
      if (fastapi) return { ...fastapi, loc, input };
      return { type: 'value_error', loc, msg: `Value error, ${issue.message}`, input, ctx: { error: issue.message } };
    }
    default:
      return { type: 'value_error', loc, msg: `Value error, ${issue.message}`, input, ctx: { error: issue.message } };
  }
}

/**
 * Pydantic stops at the first failed rule of a field while zod reports every rule, so only the
 * first item per location is kept. Unknown keys are reported per key (`extra_forbidden`).
 */
export function toFastApiItems(
  issues: readonly Issue[],
  root: LocationRoot,
  data: unknown,
  raw: unknown = data,
): ValidationErrorItem[] {
  const items: ValidationErrorItem[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    const expanded: ValidationErrorItem[] =
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => ({
            type: 'extra_forbidden',
            loc: [root, ...issue.path.map(String), key] as Loc,
            msg: 'Extra inputs are not permitted',
            input: valueAt(raw, [...issue.path, key]),
          }))
        : [toFastApiItem(issue, root, data, raw)];
    for (const item of expanded) {
      const key = JSON.stringify(item.loc);
      if (seen.has(key)) continue;
      seen.add(key);
      items.push(item);
    }
  }
  return items;
}
