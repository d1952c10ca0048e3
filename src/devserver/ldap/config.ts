import { badRequest, multiError, noContent, notFound, okEnvelope } from '../respond';
import type { DevRequest, DevResponse } from '../types';
import { parseDurationSeconds } from '../duration';
import { optionalBool, optionalInt, optionalString } from '../body-fields';
import type { DirectorySchema, LdapConfig, LdapEngine } from './state';

const SCHEMAS: readonly DirectorySchema[] = ['openldap', 'ad', 'racf'];
const USERATTR_BY_SCHEMA: Record<DirectorySchema, string> = { openldap: 'cn', ad: 'userPrincipalName', racf: 'racfid' };
export const DEFAULT_URL = 'ldap://127.0.0.1';
const DEFAULT_REQUEST_TIMEOUT_SECONDS = 90;
const DEFAULT_CONNECTION_TIMEOUT_SECONDS = 30;

/** The attribute static roles and library sets search accounts by. */
export function userAttribute(config: LdapConfig): string {
  return config.userattr || USERATTR_BY_SCHEMA[config.schema];
}

/** The stored configuration, or a 400 that says to write it first. */
export function requireConfig(engine: LdapEngine): LdapConfig {
  const config = engine.state.config;
  if (!config) {
    throw badRequest(`the directory engine at "${engine.mount.path}" has no configuration: write ${engine.mount.path}/config first`);
  }
  return config;
}

/** `POST config`: creates or merges into the stored configuration. */
export function writeConfig(engine: LdapEngine, req: DevRequest): DevResponse {
  const body = req.body;
  const existing = engine.state.config;
  const binddn = optionalString(body, 'binddn') ?? existing?.binddn ?? '';
  const bindpass = optionalString(body, 'bindpass') ?? existing?.bindpass ?? '';
  if (binddn === '') throw badRequest('missing binddn: the configuration needs the DN the engine binds as');
  if (bindpass === '') throw badRequest('missing bindpass: the configuration needs the password of binddn');

  const schema = optionalString(body, 'schema') ?? existing?.schema ?? 'openldap';
  if (!SCHEMAS.includes(schema as DirectorySchema)) {
    throw badRequest(`invalid schema "${schema}": must be one of ${SCHEMAS.join(', ')}`);
  }

  const passwordPolicy = 'password_policy' in body ? optionalString(body, 'password_policy') || undefined : existing?.passwordPolicy;
  const length = 'length' in body ? optionalInt(body, 'length') || undefined : existing?.length;
  if (passwordPolicy !== undefined && length !== undefined) {
    throw multiError("cannot set both 'password_policy' and 'length'");
  }
  if (length !== undefined && length < 1) throw badRequest(`invalid length ${length}: must be a positive integer`);

  const userattr = 'userattr' in body ? optionalString(body, 'userattr') || undefined : existing?.userattr;
  const config: LdapConfig = {
    binddn,
    bindpass,
    url: optionalString(body, 'url') || existing?.url || DEFAULT_URL,
    passwordPolicy,
    length,
    schema: schema as DirectorySchema,
    userdn: optionalString(body, 'userdn') ?? existing?.userdn ?? '',
    userattr,
    upndomain: optionalString(body, 'upndomain') ?? existing?.upndomain ?? '',
    requestTimeoutSeconds: timeoutField(body, 'request_timeout') ?? existing?.requestTimeoutSeconds ?? DEFAULT_REQUEST_TIMEOUT_SECONDS,
    connectionTimeoutSeconds:
      timeoutField(body, 'connection_timeout') ?? existing?.connectionTimeoutSeconds ?? DEFAULT_CONNECTION_TIMEOUT_SECONDS,
    starttls: optionalBool(body, 'starttls') ?? existing?.starttls ?? false,
    insecureTls: optionalBool(body, 'insecure_tls') ?? existing?.insecureTls ?? false,
    certificate: optionalString(body, 'certificate') ?? existing?.certificate ?? '',
    clientTlsCert: optionalString(body, 'client_tls_cert') ?? existing?.clientTlsCert ?? '',
    clientTlsKey: optionalString(body, 'client_tls_key') ?? existing?.clientTlsKey ?? '',
    skipStaticRoleImportRotation:
      optionalBool(body, 'skip_static_role_import_rotation') ?? existing?.skipStaticRoleImportRotation ?? false,
  };
  engine.state.config = config;
  return noContent();
}

/** `GET config`: the read fields; never the bind password or the client key pair. */
export function readConfig(engine: LdapEngine): DevResponse {
  const config = engine.state.config;
  if (!config) throw notFound();
  const data: Record<string, unknown> = {
    binddn: config.binddn,
    case_sensitive_names: false,
    certificate: config.certificate,
    connection_timeout: config.connectionTimeoutSeconds,
    insecure_tls: config.insecureTls,
    request_timeout: config.requestTimeoutSeconds,
    schema: config.schema,
    skip_static_role_import_rotation: config.skipStaticRoleImportRotation,
    starttls: config.starttls,
    tls_max_version: 'tls12',
    tls_min_version: 'tls12',
    upndomain: config.upndomain,
    url: config.url,
    userattr: userAttribute(config),
    userdn: config.userdn,
  };
  if (config.length !== undefined) data.length = config.length;
  if (config.passwordPolicy !== undefined) data.password_policy = config.passwordPolicy;
  return okEnvelope(data);
}

export function deleteConfig(engine: LdapEngine): DevResponse {
  engine.state.config = undefined;
  return noContent();
}

function timeoutField(body: Record<string, unknown>, field: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null || value === '') return undefined;
  return parseDurationSeconds(value, field);
}
