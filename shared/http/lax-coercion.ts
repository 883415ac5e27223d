import type { z } from 'zod';

/**
 * Pydantic's "lax mode", which FastAPI clients rely on: a query or path value is always a string
 * and becomes an int or bool when the field is one; JSON bodies get the same coercions. A value
 * that cannot be read as its field's type is replaced by an `InvalidInput` marker carrying the
 * Pydantic error, which the issue mapper reports at the field's place in the order. A union of
 * an integer and string forms is the integer field, with those strings accepted as well.
 */
export class InvalidInput {
  constructor(
    readonly type: string,
    readonly msg: string,
    readonly raw: unknown,
  ) {}
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on', 't', 'y']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off', 'f', 'n']);
const INT_FORMATS = new Set(['safeint', 'int32', 'uint32', 'int64', 'uint64']);
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional', 'catch']);

interface ZodDef {
  type: string;
  format?: string;
  [key: string]: unknown;
}

const def = (schema: z.ZodType): ZodDef => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

/** Peels optional/nullable/default wrappers and pipes (their input side). */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const d = def(current);
    if (WRAPPERS.has(d.type)) current = d.innerType as z.ZodType;
    else if (d.type === 'pipe') current = d.in as z.ZodType;
    else return current;
  }
}

function coerceInt(value: unknown): unknown {
  if (typeof value === 'number') {
    return Number.isInteger(value)
      ? value
      : new InvalidInput(
          'int_from_float',
          'Input should be a valid integer, got a number with a fractional part',
          value,
        );
  }
  if (typeof value === 'string') {
    const trimmed = value.trim();
    return /^[+-]?\d+$/.test(trimmed)
      ? Number(trimmed)
      : new InvalidInput('int_parsing', 'Input should be a valid integer, unable to parse string as an integer', value);
  }
  return new InvalidInput('int_type', 'Input should be a valid integer', value);
}

function coerceFloat(value: unknown): unknown {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const trimmed = value.trim();
    const parsed = Number(trimmed);
    return trimmed !== '' && Number.isFinite(parsed)
      ? parsed
      : new InvalidInput('float_parsing', 'Input should be a valid number, unable to parse string as a number', value);
  }
  return new InvalidInput('float_type', 'Input should be a valid number', value);
}

function coerceBool(value: unknown): unknown {
  if (typeof value === 'boolean') return value;
  if (value === 0 || value === 1) return value === 1;
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  if (typeof value === 'string' || typeof value === 'number') {
    return new InvalidInput('bool_parsing', 'Input should be a valid boolean, unable to interpret input', value);
  }
  return new InvalidInput('bool_type', 'Input should be a valid boolean', value);
}

export function coerceLax(schema: z.ZodType, value: unknown): unknown {
  // null and absence are the wrappers' business (nullable, optional, default, required); a bare
  // union has no wrapper to answer null, so its integer does.
  if (value === undefined || (value === null && def(schema).type !== 'union')) return value;
  const target = unwrap(schema);
  const d = def(target);
  switch (d.type) {
    case 'number':
      return INT_FORMATS.has(d.format ?? '') ? coerceInt(value) : coerceFloat(value);
    case 'boolean':
      return coerceBool(value);
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const result: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      for (const [key, fieldSchema] of Object.entries(d.shape as Record<string, z.ZodType>)) {
        if (Object.hasOwn(result, key)) result[key] = coerceLax(fieldSchema, result[key]);
      }
      return result;
    }
    case 'array':
      return Array.isArray(value) ? value.map((element) => coerceLax(d.element as z.ZodType, element)) : value;
    case 'union': {
      // An integer field that also takes a string form (an agent's public id): a string of that
      // form stays as it is; any other value is read as the integer, with the integer's errors.
      const options = d.options as z.ZodType[];
      const integer = options.find((option) => {
        const optionDef = def(unwrap(option));
        return optionDef.type === 'number' && INT_FORMATS.has(optionDef.format ?? '');
      });
      if (!integer) return value;
      if (typeof value === 'string' && options.some((option) => option !== integer && option.safeParse(value).success))
        return value;
      return coerceInt(value);
    }
    default:
      return value;
  }
}
