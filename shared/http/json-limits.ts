/**
 * Limits on free-form JSON that keep every write storable and every answer serialisable.
 * All walks are iterative: a body nested a million levels deep must not overflow the stack.
 */

/**
 * DynamoDB stores at most 32 nested levels, the item itself being the first; a body's fields are
 * stored as an item's attributes, so a body nests at most 32 levels with the body as the first.
 */
export const MAX_JSON_DEPTH = 32;

type Path = (string | number)[];

const isContainer = (value: unknown): value is object => typeof value === 'object' && value !== null;

function children(value: object): [string | number, unknown][] {
  return Array.isArray(value) ? value.map((element, index) => [index, element]) : Object.entries(value);
}

/**
 * Keys JavaScript and the DynamoDB marshaller treat specially: `__proto__` would be lost on the
 * way back, and an object with its own `constructor` is taken for a class instance (or a boxed
 * Boolean, Number or String) instead of a map.
 */
export const RESERVED_KEYS = ['__proto__', 'constructor'];

export interface UnstorableJson {
  path: Path;
  value: unknown;
  error: string;
}

/**
 * The first place (depth-first) where a JSON value cannot be stored as a DynamoDB map: a
 * container past level `maxDepth` (`value` being level 1) or a reserved key.
 */
export function findUnstorable(value: unknown, maxDepth = MAX_JSON_DEPTH): UnstorableJson | undefined {
  const stack: { value: unknown; path: Path }[] = [{ value, path: [] }];
  while (stack.length) {
    const current = stack.pop()!;
    if (!isContainer(current.value)) continue;
    if (current.path.length >= maxDepth) return { ...current, error: `nested deeper than ${maxDepth} levels` };
    const entries = children(current.value);
    const reserved = entries.find(([key]) => typeof key === 'string' && RESERVED_KEYS.includes(key));
    if (reserved)
      return {
        path: [...current.path, reserved[0]],
        value: reserved[1],
        error: `the key '${reserved[0]}' is reserved`,
      };
    for (const [key, child] of entries.reverse()) {
      if (isContainer(child)) stack.push({ value: child, path: [...current.path, key] });
    }
  }
  return undefined;
}

/** A UTF-16 high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const hasLoneSurrogate = (text: string): boolean => LONE_SURROGATE.test(text);

/**
 * Every string (value or key) of a JSON value holding a lone UTF-16 surrogate (`"\\ud800"` is
 * valid JSON but no Unicode text): stored, it would become U+FFFD (DynamoDB, S3 and every UTF-8
 * encoder replace it), so what was written is not what is read back. Python's `json` accepts it and
 * Pydantic then refuses the field as `string_unicode`; the API refuses it wherever it is in a body.
 */
export function findIllFormedStrings(value: unknown): { path: Path; value: string }[] {
  const found: { path: Path; value: string }[] = [];
  if (typeof value === 'string') return hasLoneSurrogate(value) ? [{ path: [], value }] : [];
  const stack: { value: unknown; path: Path }[] = [{ value, path: [] }];
  while (stack.length) {
    const current = stack.pop()!;
    if (!isContainer(current.value)) continue;
    const nested: { value: unknown; path: Path }[] = [];
    for (const [key, child] of children(current.value)) {
      if (typeof key === 'string' && hasLoneSurrogate(key)) found.push({ path: [...current.path, key], value: key });
      if (typeof child === 'string' && hasLoneSurrogate(child))
        found.push({ path: [...current.path, key], value: child });
      else if (isContainer(child)) nested.push({ value: child, path: [...current.path, key] });
    }
    for (let index = nested.length - 1; index >= 0; index -= 1) stack.push(nested[index]!);
  }
  return found;
}

const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * The size DynamoDB counts for `value` as an attribute value (AWS's item size rules: strings by
 * UTF-8 bytes, numbers up to 21 bytes, 1 byte for a boolean or null, 3 bytes per map or list plus
 * 1 byte per element and each map key's bytes). Stops counting once past `budget`.
 */
export function storedSize(value: unknown, budget = Number.POSITIVE_INFINITY): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length && size <= budget) {
    const current = stack.pop();
    if (typeof current === 'string') size += utf8Bytes(current);
    else if (typeof current === 'number')
      size += Math.min(21, Math.ceil(String(Math.abs(current)).replace(/[.e+-]/g, '').length / 2) + 1);
    else if (isContainer(current)) {
      size += 3;
      for (const [key, child] of children(current)) {
        size += 1 + (typeof key === 'string' ? utf8Bytes(key) : 0);
        if (size > budget) break;
        stack.push(child);
      }
    } else size += 1;
  }
  return size;
}

/** Long strings are cut and nested containers emptied, so an echoed `input` stays small. */
const ECHO_STRING_CHARS = 1000;
const ECHO_ELEMENTS = 20;

export function abbreviate(value: unknown, depth = 0): unknown {
  if (typeof value === 'string')
    return value.length > ECHO_STRING_CHARS ? `${value.slice(0, ECHO_STRING_CHARS)}…` : value;
  if (!isContainer(value)) return value;
  if (depth > 0) return Array.isArray(value) ? [] : {};
  const entries = children(value)
    .slice(0, ECHO_ELEMENTS)
    .map(([key, child]) => [key, abbreviate(child, depth + 1)] as const);
  return Array.isArray(value) ? entries.map(([, child]) => child) : Object.fromEntries(entries);
}

/**
 * Lambda answers at most 6 MB; list bodies keep to 5 MB so headers and any envelope fit with room.
 */
export const MAX_LIST_BODY_BYTES = 5_000_000;

/** The longest prefix of `items` whose JSON array fits in `budget` bytes, and whether some were left out. */
export function takeWithinBytes<T>(
  items: readonly T[],
  budget: number,
  used = 2,
): { items: T[]; bytes: number; truncated: boolean } {
  let bytes = used;
  for (const [index, item] of items.entries()) {
    const size = Buffer.byteLength(JSON.stringify(item)) + (index > 0 || used > 2 ? 1 : 0);
    if (bytes + size > budget) return { items: items.slice(0, index), bytes, truncated: true };
    bytes += size;
  }
  return { items: [...items], bytes, truncated: false };
}
