/** The directory (LDAP) engine: configuration, static roles, dynamic roles and library sets. */
import type { Construct } from 'constructs';
import { parseDuration } from '../resources/duration';
import { ldapDynamicRole } from '../resources/ldap-dynamic-role';
import { ldapLibrarySet } from '../resources/ldap-library-set';
import { ldapSecretBackend } from '../resources/ldap-secret-backend';
import { ldapStaticRole } from '../resources/ldap-static-role';
import type { LdapDynamicRoleFields, LdapLibrarySetFields, LdapSecretBackendFields, LdapStaticRoleFields } from './generated/fields';
import { EngineBackend, engineMountShape, type EngineMountProps } from './mounts';
import { propsSchema } from './props-schema';
import { constructOrPathProp, resolveMountReference } from './references';
import { SecretformResource } from './resource';
import { durationNotAbove, notBoth, showValue, type PropIssue } from './validation';

export interface LdapSecretBackendProps extends LdapSecretBackendFields, EngineMountProps {
  /**
   * Mount path of the directory engine.
   * @default "ldap"
   */
  readonly path?: string;
}

const backendSchema = propsSchema(ldapSecretBackend, engineMountShape);

function backendRules(props: Record<string, unknown>): PropIssue[] {
  const issues = notBoth(props, 'length', 'passwordPolicy', ' (length is the deprecated form of a password policy)');
  if ((props.clientTlsCert === undefined) !== (props.clientTlsKey === undefined)) {
    const missing = props.clientTlsCert === undefined ? 'clientTlsCert' : 'clientTlsKey';
    issues.push({ prop: missing, value: undefined, allowed: 'clientTlsCert and clientTlsKey go together' });
  }
  return issues;
}

/** The directory engine's connection settings (`<path>/config`); mounts the engine unless `manageMount: false`. */
export class LdapSecretBackend extends EngineBackend {
  constructor(scope: Construct, id: string, props: LdapSecretBackendProps) {
    super(scope, id, 'ldap', { resourceType: ldapSecretBackend, props, schema: backendSchema, rules: backendRules });
  }
}

const backendReference = constructOrPathProp(LdapSecretBackend, 'an LdapSecretBackend');

function mountOfBackend(backend: unknown) {
  return resolveMountReference('backend', backend, (target) => (target as LdapSecretBackend).path);
}

export interface LdapStaticRoleProps extends LdapStaticRoleFields {
  /** The engine: an `LdapSecretBackend` of this stack, or its mount path. */
  readonly backend: LdapSecretBackend | string;
}

const staticRoleSchema = propsSchema(ldapStaticRole, { backend: backendReference });

/** A static role: an existing entry whose password the engine rotates (`<mount>/static-role/<name>`). */
export class LdapStaticRole extends SecretformResource {
  constructor(scope: Construct, id: string, props: LdapStaticRoleProps) {
    const { mount, references } = mountOfBackend(props?.backend);
    super(scope, id, {
      resourceType: ldapStaticRole,
      props,
      schema: staticRoleSchema,
      derived: { mount },
      nonFieldProps: ['backend'],
      references,
    });
  }
}

export interface LdapDynamicRoleProps extends LdapDynamicRoleFields {
  /** The engine: an `LdapSecretBackend` of this stack, or its mount path. */
  readonly backend: LdapSecretBackend | string;
}

const dynamicRoleSchema = propsSchema(ldapDynamicRole, { backend: backendReference });

/** A dynamic role: entries created and deleted from templated LDIF (`<mount>/role/<name>`). */
export class LdapDynamicRole extends SecretformResource {
  constructor(scope: Construct, id: string, props: LdapDynamicRoleProps) {
    const { mount, references } = mountOfBackend(props?.backend);
    super(scope, id, {
      resourceType: ldapDynamicRole,
      props,
      schema: dynamicRoleSchema,
      rules: (raw) => durationNotAbove(raw, 'defaultTtl', 'maxTtl'),
      derived: { mount },
      nonFieldProps: ['backend'],
      references,
    });
  }
}

export interface LdapLibrarySetProps extends LdapLibrarySetFields {
  /** The engine: an `LdapSecretBackend` of this stack, or its mount path. */
  readonly backend: LdapSecretBackend | string;
}

/** The service's maximum check-out length when `maxTtl` is not set. */
const LIBRARY_DEFAULT_MAX_TTL_SECONDS = ldapLibrarySet.fields.find((field) => field.api === 'max_ttl')!.serviceDefault as number;

const librarySetSchema = propsSchema(ldapLibrarySet, { backend: backendReference });

function librarySetRules(props: Record<string, unknown>): PropIssue[] {
  const ttl = parseDuration(props.ttl);
  if (ttl === undefined || ttl === 0) return [];
  const maxTtl = props.maxTtl === undefined ? LIBRARY_DEFAULT_MAX_TTL_SECONDS : parseDuration(props.maxTtl);
  if (maxTtl === undefined || maxTtl === 0 || ttl <= maxTtl) return [];
  const upper = props.maxTtl === undefined ? `the default maxTtl of ${LIBRARY_DEFAULT_MAX_TTL_SECONDS / 3600}h` : `maxTtl (${showValue(props.maxTtl)}, ${maxTtl}s)`;
  return [{ prop: 'ttl', value: props.ttl, allowed: `must not exceed ${upper}` }];
}

/** A library set: service accounts checked out and in (`<mount>/library/<name>`). */
export class LdapLibrarySet extends SecretformResource {
  constructor(scope: Construct, id: string, props: LdapLibrarySetProps) {
    const { mount, references } = mountOfBackend(props?.backend);
    super(scope, id, {
      resourceType: ldapLibrarySet,
      props,
      schema: librarySetSchema,
      rules: librarySetRules,
      derived: { mount },
      nonFieldProps: ['backend'],
      references,
    });
  }
}
