import { badRequest } from './respond';

// Readers for request body fields, shared by the areas. Like the service, they accept JSON values and their
// string forms ("true", "30", "a,b"); `undefined` means the field was not sent, which matters for merging writes.

export function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  // The type only, never the value: this reader takes passwords, bind passwords and client secrets too.
  if (typeof value !== 'string') throw badRequest(`field "${field}" must be a string, got ${jsonType(value)}`);
  return value;
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export function optionalBool(body: Record<string, unknown>, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw badRequest(`field "${field}" must be a boolean, got ${JSON.stringify(value)}`);
}

export function optionalInt(body: Record<string, unknown>, field: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null || value === '') return undefined;
  const number = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? parseInt(value, 10) : value;
  if (typeof number !== 'number' || !Number.isInteger(number)) {
    throw badRequest(`field "${field}" must be an integer, got ${JSON.stringify(value)}`);
  }
  return number;
}

/** A comma-separated string or a list of strings; blanks dropped, entries trimmed. */
export function optionalStringList(body: Record<string, unknown>, field: string): string[] | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  const items = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(items) || items.some((item) => typeof item !== 'string')) {
    throw badRequest(`field "${field}" must be a comma-separated string or a list of strings`);
  }
  return (items as string[]).map((item) => item.trim()).filter((item) => item !== '');
}
