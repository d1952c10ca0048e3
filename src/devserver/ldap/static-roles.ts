import { badRequest, bareListResponse, noContent, notFound, ok, okEnvelope } from '../respond';
import type { DevRequest, DevResponse } from '../types';
import { optionalDurationSeconds } from '../duration';
import { requireConfig } from './config';
import { bindAsConfigured } from './connection';
import { findAccountEntry } from './accounts';
import { optionalBool, optionalString } from '../body-fields';
import { hierarchicalKeys } from './names';
import { generatePassword } from './passwords';
import { type LdapEngine, type StaticRole, ZERO_TIME, recordBackgroundError, rfc3339 } from './state';

const MIN_ROTATION_PERIOD_SECONDS = 5;

/** `POST static-role/:name`: creates (finding the entry, rotating unless skipped) or updates the period. */
export function writeStaticRole(engine: LdapEngine, name: string, req: DevRequest): DevResponse {
  const body = req.body;
  const existing = engine.state.staticRoles.get(name);
  const username = optionalString(body, 'username');
  const dn = optionalString(body, 'dn');
  const skipImportRotation = optionalBool(body, 'skip_import_rotation');
  const rotationPeriod = optionalDurationSeconds(body.rotation_period, 'rotation_period');

  if (existing) {
    if (username !== undefined && username !== existing.username) {
      throw badRequest(`cannot change username of static role "${name}" (from "${existing.username}" to "${username}")`);
    }
    if (dn !== undefined && dn !== existing.dn) {
      throw badRequest(`cannot change dn of static role "${name}" (from "${existing.dn}" to "${dn}")`);
    }
    if (skipImportRotation !== undefined) {
      throw badRequest(`skip_import_rotation can only be set when static role "${name}" is created`);
    }
  } else {
    if (!username) throw badRequest('missing username: a static role needs the username of an existing entry');
    if (rotationPeriod === undefined) throw badRequest('missing rotation_period: a static role needs a rotation period');
  }
  if (rotationPeriod !== undefined && rotationPeriod < MIN_ROTATION_PERIOD_SECONDS) {
    throw badRequest(`rotation_period of ${rotationPeriod}s is too short: the minimum is ${MIN_ROTATION_PERIOD_SECONDS} seconds`);
  }
  const config = requireConfig(engine);
  const now = engine.ctx.now();

  if (existing) {
    if (rotationPeriod !== undefined && rotationPeriod !== existing.rotationPeriodSeconds) {
      existing.rotationPeriodSeconds = rotationPeriod;
      existing.nextRotationMs = (existing.lastRotationMs ?? now) + rotationPeriod * 1000;
      scheduleRotation(engine, existing);
    }
    return noContent();
  }

  bindAsConfigured(engine);
  const entryDn = findAccountEntry(engine, config, username as string, dn, `static role "${name}"`);
  const role: StaticRole = {
    name,
    username: username as string,
    dn: dn ?? '',
    entryDn,
    rotationPeriodSeconds: rotationPeriod as number,
    password: '',
    lastPassword: '',
    nextRotationMs: now + (rotationPeriod as number) * 1000,
  };
  if (!(skipImportRotation ?? config.skipStaticRoleImportRotation)) rotateStaticRole(engine, role);
  engine.state.staticRoles.set(name, role);
  scheduleRotation(engine, role);
  return noContent();
}

/** Sets a new password on the role's entry and schedules the next rotation. Throws on directory errors. */
export function rotateStaticRole(engine: LdapEngine, role: StaticRole): void {
  const config = bindAsConfigured(engine);
  const password = generatePassword(engine, config);
  engine.ctx.directory.setPassword(role.entryDn, password);
  const now = engine.ctx.now();
  role.lastPassword = role.password;
  role.password = password;
  role.lastRotationMs = now;
  role.nextRotationMs = now + role.rotationPeriodSeconds * 1000;
  role.lastRotationError = undefined;
  scheduleRotation(engine, role);
}

/**
 * Every change of `nextRotationMs` goes through here, so that the tick finds the role when it is due. A role
 * rotated while it is being created is scheduled once it is stored.
 */
function scheduleRotation(engine: LdapEngine, role: StaticRole): void {
  if (engine.state.staticRoles.get(role.name) === role) engine.state.rotationsDue.set(role.name, role.nextRotationMs);
}

/** Rotations that are due; a failure is recorded and retried on the next tick. */
export function rotateDueStaticRoles(engine: LdapEngine, now: number): void {
  for (const name of engine.state.rotationsDue.due(now)) {
    const role = engine.state.staticRoles.get(name)!;
    try {
      rotateStaticRole(engine, role);
    } catch (error) {
      role.lastRotationError = (error as Error).message;
      recordBackgroundError(engine.state, `rotation of static role "${role.name}" failed: ${role.lastRotationError}`);
    }
  }
}

export function readStaticRole(engine: LdapEngine, name: string): DevResponse {
  const role = engine.state.staticRoles.get(name);
  if (!role) throw notFound();
  const data: Record<string, unknown> = {
    dn: role.dn,
    username: role.username,
    rotation_period: role.rotationPeriodSeconds,
  };
  if (role.lastRotationMs !== undefined) data.last_service_rotation = rfc3339(role.lastRotationMs);
  return okEnvelope(data);
}

export function deleteStaticRole(engine: LdapEngine, name: string): DevResponse {
  engine.state.staticRoles.delete(name);
  engine.state.rotationsDue.delete(name);
  return noContent();
}

export function listStaticRoles(engine: LdapEngine, prefix: string): DevResponse {
  return bareListResponse(hierarchicalKeys(engine.state.staticRoles.keys(), prefix));
}

/** `GET static-cred/:name`: a top-level object (no envelope). */
export function readStaticCredential(engine: LdapEngine, name: string): DevResponse {
  const role = requireStaticRole(engine, name);
  const now = engine.ctx.now();
  return ok({
    dn: role.entryDn,
    last_service_rotation: role.lastRotationMs === undefined ? ZERO_TIME : rfc3339(role.lastRotationMs),
    password: role.password,
    last_password: role.lastPassword,
    rotation_period: role.rotationPeriodSeconds,
    ttl: Math.max(0, Math.floor((role.nextRotationMs - now) / 1000)),
    username: role.username,
  });
}

/** `POST rotate-role/:name`. */
export function rotateRoleNow(engine: LdapEngine, name: string): DevResponse {
  rotateStaticRole(engine, requireStaticRole(engine, name));
  return noContent();
}

function requireStaticRole(engine: LdapEngine, name: string): StaticRole {
  const role = engine.state.staticRoles.get(name);
  if (!role) throw badRequest(`unknown role: ${name}`);
  return role;
}
