/** The cloud credential engine: its configuration (`CloudSecretBackend`) and roles (`CloudSecretRole`). */
import type { Construct } from 'constructs';
import { z } from 'zod';
import { cloudSecretBackend } from '../resources/cloud-secret-backend';
import { cloudSecretRole } from '../resources/cloud-secret-role';
import type { SecretValue } from '../secret-value';
import { EngineBackend, engineMountShape } from './mounts';
import { constructOrPathSchema, resolveMountReference } from './references';
import { SecretformResource } from './resource';
import {
  bool, durationNotAbove, durationSchema, exactlyOne, nonEmptyString, secretSchema, segmentNameSchema, type PropIssue,
} from './validation';

export const SIGN_IN_AUDIENCES = ['CloudADMyOrg', 'CloudADMultipleOrgs', 'CloudADandPersonalAccount', 'PersonalAccount'] as const;

export interface CloudSecretBackendProps {
  /**
   * Mount path of the cloud engine.
   * @default "cloud"
   */
  readonly path?: string;
  /**
   * Enable the engine at `path` (a child `SecretsMount` with address `<this path>/mount`). Set false when the
   * mount is managed elsewhere or already exists.
   * @default true
   */
  readonly manageMount?: boolean;
  /** Subscription id. */
  readonly subscriptionId: string;
  /** Tenant id. */
  readonly tenantId: string;
  /**
   * OAuth2 client id; needed with `clientSecret`.
   * @default - none
   */
  readonly clientId?: string;
  /**
   * OAuth2 client secret. Exactly one of `clientSecret` and `identityTokenAudience` is required. Sent only when
   * its value changes, so a `rotate-root` is not undone.
   * @default - none
   */
  readonly clientSecret?: SecretValue;
  /**
   * (Enterprise) Audience of plugin identity tokens (workload identity federation); exclusive with `clientSecret`.
   * @default - none
   */
  readonly identityTokenAudience?: string;
  /**
   * (Enterprise) Lifetime of generated identity tokens: `"1h"`-style string or integer seconds.
   * @default 3600 (service default)
   */
  readonly identityTokenTtl?: string | number;
  /**
   * Cloud environment.
   * @default - the public cloud
   */
  readonly environment?: string;
  /**
   * Validity of the root client secret that rotate-root generates.
   * @default "182d" (service default)
   */
  readonly rootPasswordTtl?: string | number;
}

const backendSchema = z.strictObject({
  ...engineMountShape,
  subscriptionId: nonEmptyString,
  tenantId: nonEmptyString,
  clientId: nonEmptyString.optional(),
  clientSecret: secretSchema.optional(),
  identityTokenAudience: nonEmptyString.optional(),
  identityTokenTtl: durationSchema.optional(),
  environment: z.string().optional(),
  rootPasswordTtl: durationSchema.optional(),
});

function backendRules(props: Record<string, unknown>): PropIssue[] {
  const issues = exactlyOne(props, ['clientSecret', 'identityTokenAudience'], ' (account credentials or workload identity federation)');
  if (props.clientSecret !== undefined && props.clientId === undefined) {
    issues.push({ prop: 'clientId', value: undefined, allowed: 'required with clientSecret (account credentials are client id and secret)' });
  }
  return issues;
}

/** The cloud credential engine's configuration (`<path>/config`); mounts the engine unless `manageMount: false`. */
export class CloudSecretBackend extends EngineBackend {
  constructor(scope: Construct, id: string, props: CloudSecretBackendProps) {
    super(scope, id, 'cloud', { resourceType: cloudSecretBackend, props, schema: backendSchema, rules: backendRules });
  }
}

export interface CloudRoleAssignment {
  /** Scope of the assignment, e.g. `/subscriptions/<id>/resourceGroups/<group>`. */
  readonly scope: string;
  /** Role name; exactly one of `roleName` and `roleId`. */
  readonly roleName?: string;
  /** Full role-definition identifier; exactly one of `roleName` and `roleId`. */
  readonly roleId?: string;
}

export interface CloudGroupMembership {
  /** Name of the group generated principals join. */
  readonly groupName: string;
}

export interface CloudSecretRoleProps {
  /** The engine: a `CloudSecretBackend` of this stack, or its mount path. */
  readonly backend: CloudSecretBackend | string;
  /** Role name (the service lower-cases it). */
  readonly name: string;
  /**
   * Roles assigned to generated principals. A role needs `cloudRoles` or `applicationObjectId`.
   * @default - none
   */
  readonly cloudRoles?: readonly CloudRoleAssignment[];
  /**
   * Groups generated principals join.
   * @default - none
   */
  readonly cloudGroups?: readonly CloudGroupMembership[];
  /**
   * Object id of an existing principal to use instead of dynamic ones (then `cloudRoles` is ignored).
   * @default - none
   */
  readonly applicationObjectId?: string;
  /**
   * Keep the created principal and application for the lifetime of the role.
   * @default false
   */
  readonly persistApp?: boolean;
  /**
   * Default TTL of generated principals; `"1h"`-style string or integer seconds; at most `maxTtl`.
   * @default - the engine's default TTL
   */
  readonly ttl?: string | number;
  /**
   * Maximum TTL of generated principals.
   * @default - the engine's maximum TTL
   */
  readonly maxTtl?: string | number;
  /**
   * Hard cap on the lifetime of generated principals.
   * @default - none
   */
  readonly explicitMaxTtl?: string | number;
  /**
   * Permanently delete dynamically created applications; must be false with `applicationObjectId`.
   * @default false
   */
  readonly permanentlyDelete?: boolean;
  /**
   * Principal types allowed to sign in.
   * @default - none (the service's default)
   */
  readonly signInAudience?: (typeof SIGN_IN_AUDIENCES)[number];
  /**
   * Tags attached to the application (no commas: the service takes them comma-separated).
   * @default - none
   */
  readonly tags?: readonly string[];
}

const roleAssignmentSchema = z.strictObject({
  scope: nonEmptyString,
  roleName: nonEmptyString.optional(),
  roleId: nonEmptyString.optional(),
});

const roleSchema = z.strictObject({
  backend: constructOrPathSchema(CloudSecretBackend, 'a CloudSecretBackend'),
  name: segmentNameSchema,
  cloudRoles: z.array(roleAssignmentSchema).optional(),
  cloudGroups: z.array(z.strictObject({ groupName: nonEmptyString })).optional(),
  applicationObjectId: nonEmptyString.optional(),
  persistApp: bool.optional(),
  ttl: durationSchema.optional(),
  maxTtl: durationSchema.optional(),
  explicitMaxTtl: durationSchema.optional(),
  permanentlyDelete: bool.optional(),
  signInAudience: z.enum(SIGN_IN_AUDIENCES).optional(),
  tags: z.array(z.string().regex(/^[^,]+$/, { message: 'a non-empty tag without "," (tags are sent comma-separated)' })).optional(),
});

function roleRules(props: Record<string, unknown>): PropIssue[] {
  const issues: PropIssue[] = [];
  const roles = props.cloudRoles;
  const hasRoles = Array.isArray(roles) && roles.length > 0;
  if (!hasRoles && props.applicationObjectId === undefined) {
    issues.push({ prop: 'cloudRoles | applicationObjectId', value: roles, allowed: 'a role needs cloudRoles (at least one) or applicationObjectId' });
  }
  if (Array.isArray(roles)) {
    roles.forEach((role, index) => {
      if (typeof role !== 'object' || role === null) return;
      const element = role as Record<string, unknown>;
      if ((element.roleName === undefined) === (element.roleId === undefined)) {
        issues.push({ prop: `cloudRoles[${index}]`, value: role, allowed: 'each role assignment needs exactly one of roleName and roleId' });
      }
    });
  }
  if (props.applicationObjectId !== undefined && props.permanentlyDelete === true) {
    issues.push({ prop: 'permanentlyDelete', value: true, allowed: 'must be false when applicationObjectId is set' });
  }
  issues.push(...durationNotAbove(props, 'ttl', 'maxTtl'));
  return issues;
}

/** A role of the cloud credential engine (`<mount>/roles/<name>`). */
export class CloudSecretRole extends SecretformResource {
  constructor(scope: Construct, id: string, props: CloudSecretRoleProps) {
    const { mount, references } = resolveMountReference('backend', props?.backend, (target) => (target as CloudSecretBackend).path);
    super(scope, id, {
      resourceType: cloudSecretRole,
      props,
      schema: roleSchema,
      rules: roleRules,
      derived: { mount },
      nonFieldProps: ['backend'],
      references,
    });
  }
}
