import { badRequest, bareListResponse, noContent, notFound, ok, okEnvelope } from '../respond';
import type { DevRequest, DevResponse } from '../types';
import { parseDurationSeconds } from '../duration';
import { requireConfig } from './config';
import { bindAsConfigured } from './connection';
import { findAccountEntry } from './accounts';
import { optionalBool, optionalStringList } from '../body-fields';
import { hierarchicalKeys } from './names';
import type { LdapEngine, LibrarySet } from './state';

const DEFAULT_TTL_SECONDS = 86400;

/**
 * `POST library/:name`: creates or updates a set. Fields not sent keep their values on update. Every account
 * must exist in the directory and belong to no other set.
 */
export function writeLibrarySet(engine: LdapEngine, name: string, req: DevRequest): DevResponse {
  const body = req.body;
  const existing = engine.state.librarySets.get(name);
  const config = requireConfig(engine);
  const accounts = optionalStringList(body, 'service_account_names') ?? existing?.serviceAccountNames ?? [];
  if (accounts.length === 0) {
    throw badRequest(`library set "${name}" needs at least one account in service_account_names`);
  }
  const set: LibrarySet = {
    name,
    serviceAccountNames: [...new Set(accounts)],
    ttlSeconds: durationField(body, 'ttl') ?? existing?.ttlSeconds ?? DEFAULT_TTL_SECONDS,
    maxTtlSeconds: durationField(body, 'max_ttl') ?? existing?.maxTtlSeconds ?? DEFAULT_TTL_SECONDS,
    disableCheckInEnforcement:
      optionalBool(body, 'disable_check_in_enforcement') ?? existing?.disableCheckInEnforcement ?? false,
  };

  for (const account of set.serviceAccountNames) {
    const owner = engine.state.accountOwners.get(account);
    if (owner !== undefined && owner !== name) throw badRequest(`account "${account}" already belongs to library set "${owner}"`);
  }
  for (const account of existing?.serviceAccountNames ?? []) {
    if (!set.serviceAccountNames.includes(account) && engine.state.checkOuts.has(account)) {
      throw badRequest(`cannot remove account "${account}" from library set "${name}" while it is checked out`);
    }
  }
  bindAsConfigured(engine);
  for (const account of set.serviceAccountNames) {
    findAccountEntry(engine, config, account, undefined, `library set "${name}", account "${account}"`);
  }
  engine.state.librarySets.set(name, set);
  for (const account of existing?.serviceAccountNames ?? []) engine.state.accountOwners.delete(account);
  for (const account of set.serviceAccountNames) engine.state.accountOwners.set(account, name);
  return noContent();
}

/** `GET library/:name`: a top-level object (no envelope). */
export function readLibrarySet(engine: LdapEngine, name: string): DevResponse {
  const set = engine.state.librarySets.get(name);
  if (!set) throw notFound();
  return ok({
    service_account_names: set.serviceAccountNames,
    ttl: set.ttlSeconds,
    max_ttl: set.maxTtlSeconds,
    disable_check_in_enforcement: set.disableCheckInEnforcement,
  });
}

export function deleteLibrarySet(engine: LdapEngine, name: string): DevResponse {
  const set = engine.state.librarySets.get(name);
  if (!set) return noContent();
  const out = set.serviceAccountNames.filter((account) => engine.state.checkOuts.has(account));
  if (out.length > 0) {
    throw badRequest(`cannot delete library set "${name}": accounts are checked out (${out.join(', ')}); check them in first`);
  }
  engine.state.librarySets.delete(name);
  for (const account of set.serviceAccountNames) engine.state.accountOwners.delete(account);
  return noContent();
}

export function listLibrarySets(engine: LdapEngine, prefix: string): DevResponse {
  return bareListResponse(hierarchicalKeys(engine.state.librarySets.keys(), prefix));
}

/** `GET library/:name/status`: per account, `available`, and the borrower when checked out. */
export function readLibraryStatus(engine: LdapEngine, name: string): DevResponse {
  const set = requireLibrarySet(engine, name);
  const data: Record<string, Record<string, unknown>> = {};
  for (const account of set.serviceAccountNames) {
    const checkOut = engine.state.checkOuts.get(account);
    data[account] = checkOut
      ? {
          available: false,
          borrower_client_token: checkOut.borrowerClientToken,
          borrower_entity_id: checkOut.borrowerEntityId,
        }
      : { available: true };
  }
  return okEnvelope(data);
}

export function requireLibrarySet(engine: LdapEngine, name: string): LibrarySet {
  const set = engine.state.librarySets.get(name);
  if (!set) throw badRequest(`unknown library set: ${name}`);
  return set;
}

function durationField(body: Record<string, unknown>, field: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null || value === '') return undefined;
  return parseDurationSeconds(value, field);
}
