/**
 * How attribute values appear in the human-readable reports: strings quoted, numbers and booleans plain,
 * lists and objects as compact JSON, all on one line (a newline in an LDIF template shows as `\n`), and long
 * values cut so that one attribute never floods a terminal or a pull-request comment.
 */

/** Longest value shown in full; longer ones are cut and end with `...`. */
export const MAX_VALUE_LENGTH = 200;

/** How much of the common text before the first difference stays visible when two long values differ late. */
const CONTEXT_BEFORE_DIFFERENCE = 40;

export function formatValue(value: unknown, maxLength = MAX_VALUE_LENGTH): string {
  if (typeof value === 'string') return formatString(value, maxLength);
  return cut(serialize(value), maxLength);
}

/**
 * `old -> new`. When both values are long and their cut forms would look the same, each side shows the text
 * around the first difference instead, so the reader sees what changed.
 */
export function formatChange(from: unknown, to: unknown, maxLength = MAX_VALUE_LENGTH): string {
  const left = formatValue(from, maxLength);
  const right = formatValue(to, maxLength);
  if (left !== right) return `${left} -> ${right}`;
  const fullLeft = serialize(from);
  const fullRight = serialize(to);
  const firstDifference = firstDifferenceIndex(fullLeft, fullRight);
  return `${excerpt(fullLeft, firstDifference, maxLength)} -> ${excerpt(fullRight, firstDifference, maxLength)}`;
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

/** A quoted string cut on a character boundary, never inside an escape sequence, still ending with a quote. */
function formatString(value: string, maxLength: number): string {
  const whole = JSON.stringify(value);
  if (whole.length <= maxLength) return whole;
  let keep = Math.min(value.length, maxLength);
  for (;;) {
    if (keep > 0 && isHighSurrogate(value.charCodeAt(keep - 1))) keep -= 1;
    const encoded = JSON.stringify(value.slice(0, keep));
    const excess = encoded.length + 3 - maxLength;
    if (excess <= 0 || keep === 0) return `${encoded.slice(0, -1)}..."`;
    keep = Math.max(0, keep - excess);
  }
}

function cut(text: string, maxLength: number): string {
  return text.length <= maxLength ? text : `${text.slice(0, Math.max(0, maxLength - 3))}...`;
}

/** The part of a serialized value from a little before `around`; a string stays between quotes. */
function excerpt(text: string, around: number, maxLength: number): string {
  const quoted = text.startsWith('"');
  const start = Math.max(0, around - CONTEXT_BEFORE_DIFFERENCE);
  const end = Math.min(text.length, start + maxLength);
  const before = start > 0 ? (quoted ? '"...' : '...') : '';
  const after = end < text.length ? (quoted ? '..."' : '...') : '';
  return `${before}${text.slice(start, end)}${after}`;
}

function firstDifferenceIndex(a: string, b: string): number {
  const shorter = Math.min(a.length, b.length);
  for (let i = 0; i < shorter; i += 1) if (a[i] !== b[i]) return i;
  return shorter;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
