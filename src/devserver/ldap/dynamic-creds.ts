import { randomUUID } from 'node:crypto';
import { multiError, notFound, ok } from '../respond';
import type { DevRequest, DevResponse } from '../types';
import { parseLdif, type LdifRecord } from '../directory/ldif';
import { applyLdif } from '../directory/ldif-apply';
import { bindAsConfigured } from './connection';
import { generatePassword } from './passwords';
import { renderLdif, renderUsername, templateFailure, type LdifTemplateValues } from './templates';
import { type DynamicLease, type DynamicRole, type LdapEngine, recordBackgroundError } from './state';

const DEFAULT_LEASE_SECONDS = 3600;

/**
 * `GET creds/:name`: renders the username, generates a password and runs the creation LDIF (stopping at the
 * first failing entry, then running the rollback LDIF). Returns the credentials and the lease at top level.
 */
export function issueDynamicCredentials(engine: LdapEngine, name: string, req: DevRequest): DevResponse {
  const role = engine.state.dynamicRoles.get(name);
  if (!role) throw notFound();
  const config = bindAsConfigured(engine);

  const displayName = req.token?.displayName ?? '';
  const issuedMs = engine.ctx.now();
  const leaseSeconds = leaseDurationSeconds(role);
  const values: LdifTemplateValues = {
    username: withTemplateError('username_template', () => renderUsername(engine, role.usernameTemplate, name, displayName)),
    password: generatePassword(engine, config),
    roleName: name,
    displayName,
    issuedMs,
    expiresMs: issuedMs + leaseSeconds * 1000,
  };
  const creation = renderAndParse(engine, 'creation_ldif', role.creationLdif, values);
  // Rendered now, so the entries can be removed even if the role changes or goes away before expiry.
  const renderedDeletionLdif = withTemplateError('deletion_ldif', () => renderLdif(engine, role.deletionLdif, values));

  const result = applyLdif(engine.ctx.directory, creation, { stopOnError: true });
  if (result.errors.length > 0) {
    const failure = `failed to create entries from creation_ldif: ${result.errors[0].message}`;
    throw multiError(rollBack(engine, role, values, failure));
  }

  const lease: DynamicLease = {
    leaseId: `${engine.mount.path}/creds/${name}/${randomUUID()}`,
    roleName: name,
    username: values.username,
    distinguishedNames: creation.map((record) => record.dn),
    renderedDeletionLdif,
    issuedMs,
    expiresMs: values.expiresMs,
  };
  engine.state.leases.set(lease.leaseId, lease);
  engine.state.leaseExpiries.set(lease.leaseId, lease.expiresMs);
  return ok({
    distinguished_names: lease.distinguishedNames,
    password: values.password,
    username: values.username,
    lease_id: lease.leaseId,
    lease_duration: leaseSeconds,
    renewable: true,
  });
}

/** Leases whose TTL elapsed: their deletion LDIF runs entry by entry (an error does not stop the rest). */
export function expireDynamicLeases(engine: LdapEngine, now: number): void {
  for (const leaseId of engine.state.leaseExpiries.due(now)) revokeLease(engine, engine.state.leases.get(leaseId)!);
}

/** Removes the lease's entries now (expiry or unmount). */
export function revokeLease(engine: LdapEngine, lease: DynamicLease): void {
  engine.state.leases.delete(lease.leaseId);
  engine.state.leaseExpiries.delete(lease.leaseId);
  try {
    const result = applyLdif(engine.ctx.directory, parseLdif(lease.renderedDeletionLdif), { stopOnError: false });
    for (const error of result.errors) {
      recordBackgroundError(engine.state, `deletion LDIF of lease ${lease.leaseId}: ${error.message}`);
    }
  } catch (error) {
    recordBackgroundError(engine.state, `deletion LDIF of lease ${lease.leaseId}: ${(error as Error).message}`);
  }
}

function leaseDurationSeconds(role: DynamicRole): number {
  const ttl = role.defaultTtlSeconds || DEFAULT_LEASE_SECONDS;
  return role.maxTtlSeconds > 0 ? Math.min(ttl, role.maxTtlSeconds) : ttl;
}

/** Runs the rollback LDIF (every entry, errors collected) and returns the message for the failed creation. */
function rollBack(engine: LdapEngine, role: DynamicRole, values: LdifTemplateValues, failure: string): string {
  if (role.rollbackLdif === '') return failure;
  try {
    const records = renderAndParse(engine, 'rollback_ldif', role.rollbackLdif, values);
    const result = applyLdif(engine.ctx.directory, records, { stopOnError: false });
    if (result.errors.length === 0) return failure;
    return `${failure}; rollback_ldif also failed: ${result.errors.map((e) => e.message).join('; ')}`;
  } catch (error) {
    return `${failure}; rollback_ldif also failed: ${(error as Error).message}`;
  }
}

function renderAndParse(engine: LdapEngine, field: string, template: string, values: LdifTemplateValues): LdifRecord[] {
  const text = withTemplateError(field, () => renderLdif(engine, template, values));
  try {
    return parseLdif(text);
  } catch (error) {
    throw multiError(`${field} rendered to invalid LDIF: ${(error as Error).message}`);
  }
}

function withTemplateError<T>(field: string, render: () => T): T {
  try {
    return render();
  } catch (error) {
    throw templateFailure(`failed to render ${field}`, error);
  }
}
