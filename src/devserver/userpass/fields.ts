import { parseCidr, type CidrBlock } from '../cidr';
import { badRequest } from '../respond';

// Readers for request body fields. Like the service, they accept JSON values and their string forms
// ("true", "30", "a,b"); `undefined` means the field was not sent, which matters for partial updates.

export function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw badRequest(`field "${field}" must be a string, got ${JSON.stringify(value)}`);
  return value;
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

/** A comma-separated string or a list of strings; entries trimmed, blanks dropped. */
export function optionalStringList(body: Record<string, unknown>, field: string): string[] | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  const items = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(items) || items.some((item) => typeof item !== 'string')) {
    throw badRequest(`field "${field}" must be a comma-separated string or a list of strings`);
  }
  return (items as string[]).map((item) => item.trim()).filter((item) => item !== '');
}

/** A CIDR list field; every entry must be a CIDR block or a plain address. */
export function optionalCidrList(body: Record<string, unknown>, field: string): CidrBlock[] | undefined {
  const texts = optionalStringList(body, field);
  if (texts === undefined) return undefined;
  return texts.map((text) => {
    const block = parseCidr(text);
    if (!block) throw badRequest(`invalid CIDR or IP address in field "${field}": ${JSON.stringify(text)}`);
    return block;
  });
}

/**
 * Policy names as the service stores them: trimmed, lower-cased, without blanks or duplicates, sorted; a list
 * holding `root` collapses to just `root`.
 */
export function sanitizePolicies(policies: string[]): string[] {
  const names = policies.map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
  if (names.includes('root')) return ['root'];
  return [...new Set(names)].sort();
}
