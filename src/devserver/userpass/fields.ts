import { parseCidr, type CidrBlock } from '../cidr';
import { optionalStringList } from '../body-fields';
import { badRequest } from '../respond';

// Userpass-specific body readers (the generic ones are in ../body-fields).

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
