/** Mounts: secrets engines (`SecretsMount`) and auth methods (`AuthMount`). */
import type { Construct } from 'constructs';
import { authMount } from '../resources/auth-mount';
import { secretsMount } from '../resources/secrets-mount';
import type { AuthMountFields, SecretsMountFields } from './generated/fields';
import { propsSchema } from './props-schema';
import type { ResourceOptions } from './resource-options';
import { SecretformResource, type ResourceDefinition } from './resource';
import { boolProp, optionalProp } from './prop-declaration';
import { mountPathProp, type PropIssue } from './validation';

export { SECRETS_ENGINE_TYPES } from '../resources/secrets-mount';
export { AUTH_METHOD_TYPES } from '../resources/auth-mount';

export interface SecretsMountProps extends SecretsMountFields {}

const secretsMountSchema = propsSchema(secretsMount);

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

export interface AuthMountProps extends AuthMountFields {}

const authMountSchema = propsSchema(authMount);

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
  /** Mount path of the engine; the engine type (`cloud`, `ldap`) unless set. */
  readonly path?: string;
  /**
   * Enable the engine at `path` (a child `SecretsMount` with address `<this path>/mount`). Set false when the
   * mount is managed elsewhere or already exists.
   * @default true
   */
  readonly manageMount?: boolean;
}

/**
 * The props of `EngineMountProps`, spread into a backend's schema.
 * @internal (zod's types stay out of the public declarations)
 */
export const engineMountShape = { path: optionalProp(mountPathProp), manageMount: optionalProp(boolProp) };

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
    // Like Pulumi's resource options, protection and retention carry over to the mount the construct manages:
    // deleting the mount is what loses the engine's objects. `ignoreChanges` names this construct's own props.
    const options = (definition.props ?? {}) as ResourceOptions;
    const guardrails = { protect: options.protect === true || undefined, retainOnDelete: options.retainOnDelete === true || undefined };
    if (definition.props?.manageMount !== false) this.mount = new SecretsMount(this, 'mount', { path, type: engineType, ...guardrails });
  }
}
