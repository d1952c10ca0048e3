/** The directory (LDAP) engine: configuration, static roles, dynamic roles and library sets. */
import type { Construct } from 'constructs';
import { z } from 'zod';
import { parseDuration } from '../resources/duration';
import { ldapDynamicRole } from '../resources/ldap-dynamic-role';
import { ldapLibrarySet } from '../resources/ldap-library-set';
import { LDAP_SCHEMAS, ldapSecretBackend } from '../resources/ldap-secret-backend';
import { ldapStaticRole, MINIMUM_ROTATION_PERIOD_SECONDS } from '../resources/ldap-static-role';
import { ldifProblems } from '../resources/ldif';
import { templateProblems, USERNAME_TEMPLATE } from '../resources/template';
import type { SecretValue } from '../secret-value';
import { EngineBackend, engineMountShape } from './mounts';
import { constructOrPathSchema, resolveMountReference } from './references';
import { SecretformResource } from './resource';
import {
  bool, durationNotAbove, durationSchema, hierarchicalNameSchema, nonEmptyString, notBoth, secretSchema, showValue, type PropIssue,
} from './validation';

export interface LdapSecretBackendProps {
  /**
   * Mount path of the directory engine.
   * @default "ldap"
   */
  readonly path?: string;
  /**
   * Enable the engine at `path` (a child `SecretsMount` with address `<this path>/mount`).
   * @default true
   */
  readonly manageMount?: boolean;
  /** DN used to bind for managing entries (needs rights to search and change passwords). */
  readonly binddn: string;
  /** Password of `binddn`. Sent only when its value changes, so a `rotate-root` is not undone. */
  readonly bindpass: SecretValue;
  /**
   * Server URL (`ldap://` or `ldaps://`), or a comma-separated list tried in order.
   * @default "ldap://127.0.0.1"
   */
  readonly url?: string;
  /**
   * Name of the password policy that generates passwords; exclusive with `length`.
   * @default - the default generation algorithm
   */
  readonly passwordPolicy?: string;
  /**
   * Directory schema: `openldap`, `ad` or `racf`.
   * @default "openldap"
   */
  readonly schema?: (typeof LDAP_SCHEMAS)[number];
  /**
   * Base DN for user search (static roles, library sets).
   * @default - none
   */
  readonly userdn?: string;
  /**
   * Attribute for user search.
   * @default - by schema: `cn` (openldap), `userPrincipalName` (ad), `racfid` (racf)
   */
  readonly userattr?: string;
  /**
   * Domain of the UPN `<binddn>@<upndomain>` used to authenticate.
   * @default - none
   */
  readonly upndomain?: string;
  /**
   * Timeout of requests to the server: `"90s"`-style string or integer seconds.
   * @default 90
   */
  readonly requestTimeout?: string | number;
  /**
   * Deprecated: seconds before trying the next URL.
   * @default 30
   */
  readonly connectionTimeout?: string | number;
  /**
   * Issue StartTLS after connecting unencrypted.
   * @default false
   */
  readonly starttls?: boolean;
  /**
   * Skip server certificate verification.
   * @default false
   */
  readonly insecureTls?: boolean;
  /**
   * CA certificate (PEM) that verifies the server.
   * @default - none
   */
  readonly certificate?: string;
  /**
   * Client certificate (PEM); with `clientTlsKey`.
   * @default - none
   */
  readonly clientTlsCert?: string;
  /**
   * Client key (PEM); with `clientTlsCert`.
   * @default - none
   */
  readonly clientTlsKey?: SecretValue;
  /**
   * Default of `skipImportRotation` for new static roles.
   * @default false
   */
  readonly skipStaticRoleImportRotation?: boolean;
  /**
   * Deprecated: length of generated passwords; exclusive with `passwordPolicy`.
   * @default 64
   */
  readonly length?: number;
}

const PEM_CERTIFICATE = /^\s*(-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\s*)+$/;
const LDAP_URL = /^ldaps?:\/\/[^\s,]+$/;

const backendSchema = z.strictObject({
  ...engineMountShape,
  binddn: nonEmptyString,
  bindpass: secretSchema,
  url: z.string().refine((value) => value.split(',').every((url) => LDAP_URL.test(url.trim())), {
    message: 'an ldap:// or ldaps:// URL, or a comma-separated list of them',
  }).optional(),
  passwordPolicy: nonEmptyString.optional(),
  schema: z.enum(LDAP_SCHEMAS).optional(),
  userdn: nonEmptyString.optional(),
  userattr: nonEmptyString.optional(),
  upndomain: nonEmptyString.optional(),
  requestTimeout: durationSchema.optional(),
  connectionTimeout: durationSchema.optional(),
  starttls: bool.optional(),
  insecureTls: bool.optional(),
  certificate: z.string().regex(PEM_CERTIFICATE, { message: 'one or more PEM certificates (-----BEGIN CERTIFICATE----- ...)' }).optional(),
  clientTlsCert: z.string().regex(PEM_CERTIFICATE, { message: 'a PEM certificate (-----BEGIN CERTIFICATE----- ...)' }).optional(),
  clientTlsKey: secretSchema.optional(),
  skipStaticRoleImportRotation: bool.optional(),
  length: z.number().int().min(1).optional(),
});

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

const backendReference = constructOrPathSchema(LdapSecretBackend, 'an LdapSecretBackend');

function mountOfBackend(backend: unknown) {
  return resolveMountReference('backend', backend, (target) => (target as LdapSecretBackend).path);
}

export interface LdapStaticRoleProps {
  /** The engine: an `LdapSecretBackend` of this stack, or its mount path. */
  readonly backend: LdapSecretBackend | string;
  /** Role name; may hold "/" to form a hierarchy (the service lower-cases it). */
  readonly name: string;
  /** Existing entry, searched under `userdn` with `userattr`. Cannot change after creation (a change re-creates the role). */
  readonly username: string;
  /**
   * DN of the entry; takes precedence over `username` for the search. Cannot change after creation.
   * @default - found by `username`
   */
  readonly dn?: string;
  /** How often the password rotates: `"24h"`-style string or integer seconds; at least 5 seconds. */
  readonly rotationPeriod: string | number;
  /**
   * On creation, do not rotate the entry's existing password (sent on creation only).
   * @default - the backend's `skipStaticRoleImportRotation`
   */
  readonly skipImportRotation?: boolean;
}

const staticRoleSchema = z.strictObject({
  backend: backendReference,
  name: hierarchicalNameSchema,
  username: nonEmptyString,
  dn: nonEmptyString.optional(),
  rotationPeriod: durationSchema.refine((value) => (parseDuration(value) ?? 0) >= MINIMUM_ROTATION_PERIOD_SECONDS, {
    message: `at least ${MINIMUM_ROTATION_PERIOD_SECONDS} seconds`,
  }),
  skipImportRotation: bool.optional(),
});

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

export interface LdapDynamicRoleProps {
  /** The engine: an `LdapSecretBackend` of this stack, or its mount path. */
  readonly backend: LdapSecretBackend | string;
  /** Role name; may hold "/" (the service lower-cases it). */
  readonly name: string;
  /** Templated LDIF that creates the account (plain or base64-encoded). */
  readonly creationLdif: string;
  /** Templated LDIF run when the lease expires. */
  readonly deletionLdif: string;
  /**
   * Templated LDIF run if creation fails (recommended).
   * @default - none
   */
  readonly rollbackLdif?: string;
  /**
   * Template that produces `.Username` (fields `.RoleName`, `.DisplayName`).
   * @default "v_{{.DisplayName}}_{{.RoleName}}_{{random 10}}_{{unix_time}}" (service default)
   */
  readonly usernameTemplate?: string;
  /**
   * Lease TTL; at most `maxTtl`.
   * @default - the engine's default TTL
   */
  readonly defaultTtl?: string | number;
  /**
   * Maximum lease TTL (never longer than the mount's).
   * @default - the engine's maximum TTL
   */
  readonly maxTtl?: string | number;
}

const ldifSchema = z.string().min(1).superRefine((text, context) => {
  for (const problem of ldifProblems(text)) context.addIssue({ code: 'custom', message: `LDIF that parses: ${problem}` });
});

const dynamicRoleSchema = z.strictObject({
  backend: backendReference,
  name: hierarchicalNameSchema,
  creationLdif: ldifSchema,
  deletionLdif: ldifSchema,
  rollbackLdif: ldifSchema.optional(),
  usernameTemplate: z.string().min(1).superRefine((text, context) => {
    for (const problem of templateProblems(text, USERNAME_TEMPLATE)) context.addIssue({ code: 'custom', message: `a template that parses: ${problem}` });
  }).optional(),
  defaultTtl: durationSchema.optional(),
  maxTtl: durationSchema.optional(),
});

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

export interface LdapLibrarySetProps {
  /** The engine: an `LdapSecretBackend` of this stack, or its mount path. */
  readonly backend: LdapSecretBackend | string;
  /** Set name; may hold "/" (the service lower-cases it). */
  readonly name: string;
  /** Accounts that can be checked out: at least one; each in at most one set of the mount. */
  readonly serviceAccountNames: readonly string[];
  /**
   * Maximum length of one check-out; 0 is unlimited; at most `maxTtl`.
   * @default "24h"
   */
  readonly ttl?: string | number;
  /**
   * Maximum length of a check-out including renewals; 0 is unlimited.
   * @default "24h"
   */
  readonly maxTtl?: string | number;
  /**
   * Allow check-in by anyone, not only the borrower.
   * @default false
   */
  readonly disableCheckInEnforcement?: boolean;
}

const LIBRARY_DEFAULT_MAX_TTL_SECONDS = 86400;

const librarySetSchema = z.strictObject({
  backend: backendReference,
  name: hierarchicalNameSchema,
  serviceAccountNames: z
    .array(nonEmptyString)
    .min(1)
    .refine((names) => new Set(names.map((name) => name.toLowerCase())).size === names.length, { message: 'each account at most once' }),
  ttl: durationSchema.optional(),
  maxTtl: durationSchema.optional(),
  disableCheckInEnforcement: bool.optional(),
});

function librarySetRules(props: Record<string, unknown>): PropIssue[] {
  const ttl = parseDuration(props.ttl);
  if (ttl === undefined || ttl === 0) return [];
  const maxTtl = props.maxTtl === undefined ? LIBRARY_DEFAULT_MAX_TTL_SECONDS : parseDuration(props.maxTtl);
  if (maxTtl === undefined || maxTtl === 0 || ttl <= maxTtl) return [];
  const upper = props.maxTtl === undefined ? 'the default maxTtl of 24h' : `maxTtl (${showValue(props.maxTtl)}, ${maxTtl}s)`;
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
