/**
 * Template values. Data comes in as plain JS values; Go strings are byte strings, which matters only for
 * `utf16le`, whose result is not valid text: it is carried as TemplateBytes so `base64` and `sha256` see the
 * exact bytes.
 */
export class TemplateBytes {
  constructor(readonly bytes: Buffer) {}

  /** Bytes written into the output map one-to-one to characters (latin1), so they survive a round trip. */
  toString(): string {
    return this.bytes.toString('latin1');
  }
}

/** A field that is not in the data: Go's "invalid value", printed as `<no value>`. */
export const NO_VALUE: unique symbol = Symbol('no value');

export type TemplateValue = unknown;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof TemplateBytes);
}

/** Go's notion of truth for `if`/`with`: zero values and empty collections are false. */
export function isTruthy(value: TemplateValue): boolean {
  if (value === NO_VALUE || value === null || value === undefined) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return value.length > 0;
  if (value instanceof TemplateBytes) return value.bytes.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (isPlainObject(value)) return Object.keys(value).length > 0;
  return true;
}

/** The Go type name of a value, as fmt prints it in `%!verb(type=value)` and EXTRA notes. */
export function goTypeName(value: TemplateValue): string {
  if (value === NO_VALUE || value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return 'string';
  if (value instanceof TemplateBytes) return 'string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float64';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** Go's `%v` formatting of a value. */
export function formatValue(value: TemplateValue): string {
  if (value === NO_VALUE || value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (value instanceof TemplateBytes) return value.toString();
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(formatValue).join(' ')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((k) => `${k}:${formatValue(value[k])}`).join(' ')}]`;
  }
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- what is left (a bigint, a symbol, a function) prints as JavaScript shows it
  return String(value);
}

/** Go prints floats with %g-like shortest form: 1e+21 rather than JS's 1e21. */
export function formatNumber(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  return String(value).replace(/e([+-])(\d)$/, 'e$10$2');
}

/** What an action prints: like `%v`, except a missing field prints `<no value>`. */
export function printValue(value: TemplateValue): string {
  return value === NO_VALUE ? '<no value>' : formatValue(value);
}
