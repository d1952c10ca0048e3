/**
 * How attribute values appear in the human-readable reports: strings quoted, numbers and booleans plain, lists
 * and objects as compact JSON, all on one line (a newline in an LDIF template shows as `\n`). A value is always
 * shown whole, however long: a cut value cannot be read, nor checked against what it should be (a terminal
 * wraps a long line; a pull-request comment too long for one post wraps it across lines, see markdown-split).
 */

export function formatValue(value: unknown): string {
  return serialize(value);
}

/** `old -> new`, both whole. */
export function formatChange(from: unknown, to: unknown): string {
  return `${formatValue(from)} -> ${formatValue(to)}`;
}

/** One-line JSON text of a value; `undefined` (absent) shows as `null`, like terraform. */
export function serialize(value: unknown): string {
  if (value === undefined) return 'null';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // A value JSON cannot encode (a bigint, a cycle) is still shown rather than failing the whole report.
    return String(value);
  }
}
