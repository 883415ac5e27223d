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

/** The first container (depth-first) past level `maxDepth`, `value` being level 1, with its path. */
export function findTooDeep(value: unknown, maxDepth = MAX_JSON_DEPTH): { path: Path; value: unknown } | undefined {
  const stack: { value: unknown; path: Path }[] = [{ value, path: [] }];
  while (stack.length) {
    const current = stack.pop()!;
    if (!isContainer(current.value)) continue;
    if (current.path.length >= maxDepth) return current;
    for (const [key, child] of children(current.value).reverse()) {
      if (isContainer(child)) stack.push({ value: child, path: [...current.path, key] });
    }
  }
  return undefined;
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
    else if (typeof current === 'number') size += Math.min(21, Math.ceil(String(Math.abs(current)).replace(/[.e+-]/g, '').length / 2) + 1);
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
  if (typeof value === 'string') return value.length > ECHO_STRING_CHARS ? `${value.slice(0, ECHO_STRING_CHARS)}…` : value;
  if (!isContainer(value)) return value;
  if (depth > 0) return Array.isArray(value) ? [] : {};
  const entries = children(value).slice(0, ECHO_ELEMENTS).map(([key, child]) => [key, abbreviate(child, depth + 1)] as const);
  return Array.isArray(value) ? entries.map(([, child]) => child) : Object.fromEntries(entries);
}
