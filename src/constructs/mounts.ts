/** Mounts: secrets engines (`SecretsMount`) and auth methods (`AuthMount`). */
import type { Construct } from 'constructs';
import { z } from 'zod';
import { authMount } from '../resources/auth-mount';
import { secretsMount } from '../resources/secrets-mount';
import { SecretformResource, type ResourceDefinition } from './resource';
import { bool, mountPathSchema, type PropIssue } from './validation';

export const SECRETS_ENGINE_TYPES = ['kv', 'cloud', 'ldap'] as const;
export const AUTH_METHOD_TYPES = ['userpass'] as const;

export interface SecretsMountProps {
  /** Path the engine is mounted at, without leading or trailing "/" (e.g. `secret`, `cloud`, `team/ldap`). */
  readonly path: string;
  /** Engine type: `kv` (use `options: { version: '2' }` for KV version 2), `cloud` or `ldap`. */
  readonly type: (typeof SECRETS_ENGINE_TYPES)[number];
  /**
   * Human-readable description of the mount.
   * @default - none (the service stores "")
   */
  readonly description?: string;
  /**
   * Engine options; only `kv` takes one: `version` ("1" or "2"). Secret sync needs version "2".
   * @default - none (a `kv` mount without options is version 1)
   */
  readonly options?: { readonly version?: '1' | '2' };
}

const secretsMountSchema = z.strictObject({
  path: mountPathSchema,
  type: z.enum(SECRETS_ENGINE_TYPES),
  description: z.string().optional(),
  options: z.strictObject({ version: z.enum(['1', '2']).optional() }).optional(),
});

/** A secrets engine enabled at a path (`sys/mounts/<path>`). */
export class SecretsMount extends SecretformResource {
  readonly path: string;
  readonly type: string;

  constructor(scope: Construct, id: string, props: SecretsMountProps) {
    super(scope, id, {
      resourceType: secretsMount,
      props,
      schema: secretsMountSchema,
      rules: (raw): PropIssue[] =>
        raw.options !== undefined && raw.type !== 'kv'
          ? [{ prop: 'options', value: raw.options, allowed: `options are taken by type "kv" only (type is ${JSON.stringify(raw.type)})` }]
          : [],
    });
    this.path = props?.path;
    this.type = props?.type;
  }
}

export interface AuthMountProps {
  /** Path the auth method is mounted at, without "auth/" and without leading or trailing "/". */
  readonly path: string;
  /** Auth method type: `userpass`. */
  readonly type: (typeof AUTH_METHOD_TYPES)[number];
  /**
   * Human-readable description of the mount.
   * @default - none (the service stores "")
   */
  readonly description?: string;
}

const authMountSchema = z.strictObject({
  path: mountPathSchema,
  type: z.enum(AUTH_METHOD_TYPES),
  description: z.string().optional(),
});

/** An auth method enabled at a path (`sys/auth/<path>`). */
export class AuthMount extends SecretformResource {
  readonly path: string;

  constructor(scope: Construct, id: string, props: AuthMountProps) {
    super(scope, id, { resourceType: authMount, props, schema: authMountSchema });
    this.path = props?.path;
  }
}

/** The props of an engine's configuration construct that are about its mount, not its fields. */
export interface EngineMountProps {
  readonly path?: string;
  readonly manageMount?: boolean;
}

/** Schema entries for `EngineMountProps`, spread into a backend's schema. */
export const engineMountShape = { path: mountPathSchema.optional(), manageMount: bool.optional() };

/**
 * An engine's configuration (`<path>/config`): `path` defaults to the engine type, and the engine is mounted
 * there by a child `SecretsMount` (address `<this path>/mount`) unless `manageMount: false`.
 */
export abstract class EngineBackend extends SecretformResource {
  /** Mount path of the engine. */
  readonly path: string;
  /** The mount this construct manages, unless `manageMount: false`. */
  readonly mount?: SecretsMount;

  protected constructor(
    scope: Construct,
    id: string,
    engineType: 'cloud' | 'ldap',
    definition: Omit<ResourceDefinition<EngineMountProps>, 'derived' | 'nonFieldProps'>,
  ) {
    const path = definition.props?.path ?? engineType;
    super(scope, id, { ...definition, derived: { path }, nonFieldProps: ['path', 'manageMount'] });
    this.path = path;
    if (definition.props?.manageMount !== false) this.mount = new SecretsMount(this, 'mount', { path, type: engineType });
  }
}
