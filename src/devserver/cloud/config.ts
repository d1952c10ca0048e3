import { optionalDurationSeconds } from '../duration';
import { badRequest } from '../respond';
import { optionalString } from '../body-fields';

export const DEFAULT_ROOT_PASSWORD_TTL_SECONDS = 15_768_000; // 182d
export const DEFAULT_IDENTITY_TOKEN_TTL_SECONDS = 3600;

/** The engine's stored configuration (one per mount). */
export interface CloudConfig {
  subscriptionId: string;
  tenantId: string;
  clientId: string;
  clientSecret: string;
  environment: string;
  rootPasswordTtlSeconds: number;
  identityTokenAudience: string;
  identityTokenTtlSeconds: number;
}

/**
 * Applies a `POST config` body. Writes MERGE with the stored configuration, like the real plugin: a field
 * not sent keeps its stored value (so an update that leaves out `client_secret` does not undo a rotate-root),
 * and sending `""` clears a string field. The merged result is validated.
 */
export function applyConfigWrite(existing: CloudConfig | undefined, body: Record<string, unknown>): CloudConfig {
  const base: CloudConfig = existing ?? {
    subscriptionId: '',
    tenantId: '',
    clientId: '',
    clientSecret: '',
    environment: '',
    rootPasswordTtlSeconds: DEFAULT_ROOT_PASSWORD_TTL_SECONDS,
    identityTokenAudience: '',
    identityTokenTtlSeconds: DEFAULT_IDENTITY_TOKEN_TTL_SECONDS,
  };
  const config: CloudConfig = {
    subscriptionId: optionalString(body, 'subscription_id') ?? base.subscriptionId,
    tenantId: optionalString(body, 'tenant_id') ?? base.tenantId,
    clientId: optionalString(body, 'client_id') ?? base.clientId,
    clientSecret: optionalString(body, 'client_secret') ?? base.clientSecret,
    environment: optionalString(body, 'environment') ?? base.environment,
    rootPasswordTtlSeconds:
      optionalDurationSeconds(body.root_password_ttl, 'root_password_ttl') ?? base.rootPasswordTtlSeconds,
    identityTokenAudience: optionalString(body, 'identity_token_audience') ?? base.identityTokenAudience,
    identityTokenTtlSeconds:
      optionalDurationSeconds(body.identity_token_ttl, 'identity_token_ttl') ?? base.identityTokenTtlSeconds,
  };
  if (config.subscriptionId.trim() === '') throw badRequest('subscription_id is required');
  if (config.tenantId.trim() === '') throw badRequest('tenant_id is required');
  if (config.clientSecret !== '' && config.identityTokenAudience !== '') {
    throw badRequest('only one of "client_secret" or "identity_token_audience" can be set');
  }
  return config;
}

/** `GET config` data; an engine never configured reads as empty strings and zeros. Never `client_secret`. */
export function configReadData(config: CloudConfig | undefined): Record<string, unknown> {
  return {
    subscription_id: config?.subscriptionId ?? '',
    tenant_id: config?.tenantId ?? '',
    client_id: config?.clientId ?? '',
    environment: config?.environment ?? '',
    root_password_ttl: config?.rootPasswordTtlSeconds ?? 0,
    identity_token_audience: config?.identityTokenAudience ?? '',
    identity_token_ttl: config?.identityTokenTtlSeconds ?? 0,
  };
}
