import { badRequest } from '../respond';
import { userAttribute } from './config';
import type { LdapConfig, LdapEngine } from './state';

/**
 * The DN of an existing account: the entry at `dn` when given, else the single entry under `userdn` whose
 * `userattr` equals `username`. `owner` names what needs the account, for the error message.
 */
export function findAccountEntry(
  engine: LdapEngine,
  config: LdapConfig,
  username: string,
  dn: string | undefined,
  owner: string,
): string {
  if (dn) {
    const entry = engine.ctx.directory.get(dn);
    if (!entry) throw badRequest(`${owner}: no entry with dn "${dn}" exists in the directory`);
    return entry.dn;
  }
  const attribute = userAttribute(config);
  const found = engine.ctx.directory.search(config.userdn, attribute, username);
  const where = `under "${config.userdn || '(root)'}" with ${attribute}=${username}`;
  if (found.length === 0) throw badRequest(`${owner}: no entry found in the directory ${where}`);
  if (found.length > 1) throw badRequest(`${owner}: ${found.length} entries found in the directory ${where}; expected one`);
  return found[0].dn;
}
