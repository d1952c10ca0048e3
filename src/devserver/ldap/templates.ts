import { badRequest, multiError, type ServiceError } from '../respond';
import { renderTemplate, TemplateLimitError } from '../template';
import type { LdapEngine } from './state';

export const DEFAULT_USERNAME_TEMPLATE = 'v_{{.DisplayName}}_{{.RoleName}}_{{random 10}}_{{unix_time}}';

/** The values an LDIF template sees (service-api.md, "Template language"). */
export interface LdifTemplateValues {
  username: string;
  password: string;
  roleName: string;
  displayName: string;
  issuedMs: number;
  expiresMs: number;
}

/** Renders a role's username template ('' = the default). Throws TemplateError. */
export function renderUsername(engine: LdapEngine, template: string, roleName: string, displayName: string): string {
  return renderTemplate(
    template || DEFAULT_USERNAME_TEMPLATE,
    { RoleName: roleName, DisplayName: displayName },
    { now: () => engine.ctx.now(), missingKey: 'error' },
  );
}

/** Renders an LDIF template. Throws TemplateError. */
export function renderLdif(engine: LdapEngine, template: string, values: LdifTemplateValues): string {
  const seconds = (ms: number): number => Math.floor(ms / 1000);
  const rfc3339Seconds = (ms: number): string => new Date(seconds(ms) * 1000).toISOString().replace('.000Z', 'Z');
  return renderTemplate(
    template,
    {
      Username: values.username,
      Password: values.password,
      RoleName: values.roleName,
      DisplayName: values.displayName,
      IssueTime: rfc3339Seconds(values.issuedMs),
      IssueTimeSeconds: seconds(values.issuedMs),
      ExpirationTime: rfc3339Seconds(values.expiresMs),
      ExpirationTimeSeconds: seconds(values.expiresMs),
    },
    { ldif: true, now: () => engine.ctx.now(), missingKey: 'error' },
  );
}

/**
 * The response for a template that failed: the engine's plain 500 for a broken template (as deployed servers
 * answer), but 400 for one over the dev server's template limits, since the request asked for too much.
 */
export function templateFailure(message: string, error: unknown): ServiceError {
  const detail = `${message}: ${error instanceof Error ? error.message : String(error)}`;
  return error instanceof TemplateLimitError ? badRequest(detail) : multiError(detail);
}
