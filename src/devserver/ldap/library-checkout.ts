import { randomUUID } from 'node:crypto';
import { badRequest, okEnvelope } from '../respond';
import type { DevRequest, DevResponse, TokenInfo } from '../types';
import { optionalDurationSeconds } from '../duration';
import { bindAsConfigured } from './connection';
import { optionalStringList } from '../body-fields';
import { requireLibrarySet } from './library-sets';
import { generatePassword } from './passwords';
import { type CheckOut, type LdapEngine, type LibrarySet, recordBackgroundError } from './state';
import { findAccountEntry } from './accounts';

/**
 * `POST library/:name/check-out`: lends the first free account with a fresh password. The check-out lasts
 * the requested ttl capped at the set's ttl (0 = unlimited, itself capped when the set has a ttl), and never
 * longer than the set's max_ttl ("maximum length of a check-out including renewals"; 0 = unlimited).
 */
export function checkOut(engine: LdapEngine, name: string, req: DevRequest): DevResponse {
  const set = requireLibrarySet(engine, name);
  const requested = optionalDurationSeconds(req.body.ttl, 'ttl') ?? set.ttlSeconds;
  const capped = set.ttlSeconds === 0 ? requested : requested === 0 ? set.ttlSeconds : Math.min(requested, set.ttlSeconds);
  const ttlSeconds = set.maxTtlSeconds > 0 && (capped === 0 || capped > set.maxTtlSeconds) ? set.maxTtlSeconds : capped;
  const account = set.serviceAccountNames.find((candidate) => !engine.state.checkOuts.has(candidate));
  if (account === undefined) throw badRequest('No service accounts available for check-out.');

  const password = setNewAccountPassword(engine, account);
  const now = engine.ctx.now();
  const record: CheckOut = {
    account,
    setName: name,
    leaseId: `${engine.mount.path}/library/${name}/check-out/${randomUUID()}`,
    borrowerClientToken: req.token?.id ?? '',
    borrowerEntityId: req.token?.entityId ?? '',
    checkedOutMs: now,
    expiresMs: ttlSeconds === 0 ? undefined : now + ttlSeconds * 1000,
  };
  engine.state.checkOuts.set(account, record);
  if (record.expiresMs !== undefined) engine.state.checkOutExpiries.set(account, record.expiresMs);
  return okEnvelope(
    { password, service_account_name: account },
    { leaseId: record.leaseId, renewable: true, leaseDurationSeconds: ttlSeconds },
  );
}

/**
 * `POST library/:name/check-in` and, with `force`, `library/manage/:name/check-in`. Only the borrower (same
 * token or entity) may check an account in unless the set disables enforcement or the call forces it.
 * Accounts already in are skipped without being listed. Checked-in accounts get a new password.
 */
export function checkIn(engine: LdapEngine, name: string, req: DevRequest, force: boolean): DevResponse {
  const set = requireLibrarySet(engine, name);
  const mayCheckIn = (record: CheckOut): boolean =>
    force || set.disableCheckInEnforcement || isBorrower(record, req.token);
  const named = optionalStringList(req.body, 'service_account_names') ?? [];
  const accounts = named.length > 0 ? named : onlyAccountOut(engine, set, mayCheckIn);

  for (const account of accounts) {
    if (!set.serviceAccountNames.includes(account)) {
      throw badRequest(`account "${account}" is not in library set "${name}"`);
    }
    const record = engine.state.checkOuts.get(account);
    if (record && !mayCheckIn(record)) {
      throw badRequest(`"${account}" can't be checked in because it wasn't checked out by the caller`);
    }
  }
  const checkIns: string[] = [];
  for (const account of accounts) {
    if (!engine.state.checkOuts.has(account)) continue;
    setNewAccountPassword(engine, account);
    endCheckOut(engine, account);
    checkIns.push(account);
  }
  return okEnvelope({ check_ins: checkIns });
}

/** Check-outs whose ttl elapsed go back in; the password is rotated (a failure is recorded, not retried). */
export function checkInExpired(engine: LdapEngine, now: number): void {
  for (const account of engine.state.checkOutExpiries.due(now)) {
    endCheckOut(engine, account);
    try {
      setNewAccountPassword(engine, account);
    } catch (error) {
      recordBackgroundError(
        engine.state,
        `automatic check-in of "${account}" could not rotate its password: ${(error as Error).message}`,
      );
    }
  }
}

function endCheckOut(engine: LdapEngine, account: string): void {
  engine.state.checkOuts.delete(account);
  engine.state.checkOutExpiries.delete(account);
}

function isBorrower(record: CheckOut, token: TokenInfo | undefined): boolean {
  if (!token) return false;
  if (record.borrowerEntityId !== '' && record.borrowerEntityId === token.entityId) return true;
  return record.borrowerClientToken === token.id;
}

/** With no names given, the single account of the set that the caller may check in. */
function onlyAccountOut(engine: LdapEngine, set: LibrarySet, mayCheckIn: (record: CheckOut) => boolean): string[] {
  const out = set.serviceAccountNames.filter((account) => {
    const record = engine.state.checkOuts.get(account);
    return record !== undefined && mayCheckIn(record);
  });
  if (out.length > 1) {
    throw badRequest(
      `service_account_names must be given: ${out.length} accounts of library set "${set.name}" are checked out by the caller`,
    );
  }
  return out;
}

function setNewAccountPassword(engine: LdapEngine, account: string): string {
  const config = bindAsConfigured(engine);
  const dn = findAccountEntry(engine, config, account, undefined, `library account "${account}"`);
  const password = generatePassword(engine, config);
  engine.ctx.directory.setPassword(dn, password);
  return password;
}
