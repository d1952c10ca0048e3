/**
 * Values in generated code: TypeScript literals of canonical attribute values, with durations in the readable
 * form people write (`'1h'`, not `3600`) and object-list elements with their construct prop names.
 */
import { isPlainObject } from '../resources/define';
import type { FieldSpec } from '../resources/types';

const UNITS: readonly [number, string][] = [[86_400, 'd'], [3_600, 'h'], [60, 'm']];

/** Whole seconds as the largest unit that divides them: 3600 -> `1h`, 90 -> `90s`, 0 -> `0s`. */
export function readableDuration(seconds: number): string {
  if (seconds !== 0) {
    for (const [size, unit] of UNITS) if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}

/** A TypeScript expression for a field's canonical value. */
export function renderValue(field: FieldSpec, value: unknown): string {
  if (field.kind === 'duration' && typeof value === 'number' && Number.isInteger(value)) return stringLiteral(readableDuration(value));
  // Multi-line text (LDIF) as its lines joined, the way it is written by hand.
  if (typeof value === 'string' && value.includes('\n')) return `[${value.split('\n').map(stringLiteral).join(', ')}].join('\\n')`;
  if (field.kind === 'objectList' && Array.isArray(value)) {
    return `[${value.map((element) => (isPlainObject(element) ? renderElement(field, element) : renderLiteral(element))).join(', ')}]`;
  }
  return renderLiteral(value);
}

/** An object-list element: member values under their prop names (`role_name` -> `roleName`). */
function renderElement(field: FieldSpec, element: Record<string, unknown>): string {
  const entries = Object.keys(element).map((key) => {
    const member = field.members?.find((candidate) => candidate.api === key);
    return `${propertyKey(member?.prop ?? key)}: ${member ? renderValue(member, element[key]) : renderLiteral(element[key])}`;
  });
  return `{ ${entries.join(', ')} }`;
}

/** A literal of a JSON value; object keys sorted so the output does not depend on the server's key order. */
export function renderLiteral(value: unknown): string {
  if (typeof value === 'string') return stringLiteral(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) return `[${value.map(renderLiteral).join(', ')}]`;
  if (isPlainObject(value)) {
    return `{ ${Object.keys(value).sort().map((key) => `${propertyKey(key)}: ${renderLiteral(value[key])}`).join(', ')} }`;
  }
  throw new Error(`cannot write ${typeof value} as a TypeScript literal`);
}

export function stringLiteral(text: string): string {
  return `'${JSON.stringify(text).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

function propertyKey(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : stringLiteral(key);
}
