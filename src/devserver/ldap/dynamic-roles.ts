import { badRequest, listResponse, multiError, noContent, notFound, okEnvelope } from '../respond';
import type { DevRequest, DevResponse } from '../types';
import { parseDurationSeconds } from '../duration';
import { checkTemplate } from '../template';
import { isLikelyBase64Ldif, parseLdif } from '../directory/ldif';
import { optionalString } from '../body-fields';
import { hierarchicalKeys } from './names';
import { renderLdif, renderUsername, templateFailure } from './templates';
import type { DynamicRole, LdapEngine } from './state';

/** The longest lease the emulated server grants (the service's system default maximum, 768h). */
export const MOUNT_MAX_TTL_SECONDS = 768 * 3600;

type LdifField = 'creation_ldif' | 'deletion_ldif' | 'rollback_ldif';
const LDIF_FIELDS: Record<LdifField, keyof DynamicRole> = {
  creation_ldif: 'creationLdif',
  deletion_ldif: 'deletionLdif',
  rollback_ldif: 'rollbackLdif',
};

/**
 * `POST role/:name`: a partial update. Only the keys sent change; a key sent as "" clears its value.
 * LDIF sent base64-encoded is stored decoded; templates and the LDIF they produce must parse (500 otherwise).
 */
export function writeDynamicRole(engine: LdapEngine, name: string, req: DevRequest): DevResponse {
  const body = req.body;
  const role: DynamicRole = {
    ...(engine.state.dynamicRoles.get(name) ?? {
      name,
      creationLdif: '',
      deletionLdif: '',
      rollbackLdif: '',
      usernameTemplate: '',
      defaultTtlSeconds: 0,
      maxTtlSeconds: 0,
    }),
  };

  for (const [field, key] of Object.entries(LDIF_FIELDS) as [LdifField, keyof DynamicRole][]) {
    const value = optionalString(body, field);
    if (value === undefined) continue;
    (role[key] as string) = value === '' ? '' : (isLikelyBase64Ldif(value) ?? value);
  }
  const usernameTemplate = optionalString(body, 'username_template');
  if (usernameTemplate !== undefined) role.usernameTemplate = usernameTemplate;
  if ('default_ttl' in body) role.defaultTtlSeconds = ttlField(body.default_ttl, 'default_ttl');
  if ('max_ttl' in body) role.maxTtlSeconds = ttlField(body.max_ttl, 'max_ttl');

  if (role.creationLdif === '') throw multiError('missing creation_ldif');
  if (role.deletionLdif === '') throw multiError('missing deletion_ldif');
  if (role.maxTtlSeconds > MOUNT_MAX_TTL_SECONDS) {
    throw badRequest(`max_ttl of ${role.maxTtlSeconds}s exceeds the mount's maximum TTL of ${MOUNT_MAX_TTL_SECONDS}s`);
  }
  for (const [field, key] of Object.entries(LDIF_FIELDS) as [LdifField, keyof DynamicRole][]) {
    const text = role[key] as string;
    if (text !== '') checkLdifTemplate(engine, field, text);
  }
  if (role.usernameTemplate !== '') {
    try {
      checkTemplate(role.usernameTemplate);
    } catch (error) {
      throw templateFailure('invalid username_template', error);
    }
  }
  engine.state.dynamicRoles.set(name, role);
  return noContent();
}

export function readDynamicRole(engine: LdapEngine, name: string): DevResponse {
  const role = engine.state.dynamicRoles.get(name);
  if (!role) throw notFound();
  return okEnvelope({
    creation_ldif: role.creationLdif,
    deletion_ldif: role.deletionLdif,
    rollback_ldif: role.rollbackLdif,
    username_template: role.usernameTemplate,
    default_ttl: role.defaultTtlSeconds,
    max_ttl: role.maxTtlSeconds,
  });
}

export function deleteDynamicRole(engine: LdapEngine, name: string): DevResponse {
  engine.state.dynamicRoles.delete(name);
  return noContent();
}

/** `LIST role`: dynamic roles list in the standard envelope (`data.keys`). */
export function listDynamicRoles(engine: LdapEngine, prefix: string): DevResponse {
  return listResponse(hierarchicalKeys(engine.state.dynamicRoles.keys(), prefix));
}

function ttlField(value: unknown, field: string): number {
  if (value === null || value === '') return 0;
  return parseDurationSeconds(value, field);
}

/** The template must parse, and what it renders to with sample values must parse as LDIF. */
function checkLdifTemplate(engine: LdapEngine, field: LdifField, text: string): void {
  let rendered: string;
  try {
    checkTemplate(text, { ldif: true });
    const sampleUsername = renderUsername(engine, '', 'sample-role', 'token');
    rendered = renderLdif(engine, text, {
      username: sampleUsername,
      password: 'SamplePassword0123456789',
      roleName: 'sample-role',
      displayName: 'token',
      issuedMs: engine.ctx.now(),
      expiresMs: engine.ctx.now() + 3600_000,
    });
  } catch (error) {
    throw templateFailure(`invalid ${field} template`, error);
  }
  try {
    parseLdif(rendered);
  } catch (error) {
    throw multiError(`invalid ${field}: ${(error as Error).message}`);
  }
}
