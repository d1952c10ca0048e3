/** The cloud credential engine: its configuration (`CloudSecretBackend`) and roles (`CloudSecretRole`). */
import type { Construct } from 'constructs';
import { cloudSecretBackend } from '../resources/cloud-secret-backend';
import { cloudSecretRole } from '../resources/cloud-secret-role';
import type { CloudSecretBackendFields, CloudSecretRoleFields } from './generated/fields';
import { EngineBackend, engineMountShape, type EngineMountProps } from './mounts';
import { propsSchema } from './props-schema';
import { constructOrPathProp, resolveMountReference } from './references';
import { SecretformResource } from './resource';
import { durationNotAbove, exactlyOne, type PropIssue } from './validation';

export { SIGN_IN_AUDIENCES } from '../resources/cloud-secret-role';
export type { CloudRoleAssignment, CloudGroupMembership } from './generated/fields';

export interface CloudSecretBackendProps extends CloudSecretBackendFields, EngineMountProps {
  /**
   * Mount path of the cloud engine.
   * @default "cloud"
   */
  readonly path?: string;
}

const backendSchema = propsSchema(cloudSecretBackend, engineMountShape);

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

export interface CloudSecretRoleProps extends CloudSecretRoleFields {
  /** The engine: a `CloudSecretBackend` of this stack, or its mount path. */
  readonly backend: CloudSecretBackend | string;
}

const roleSchema = propsSchema(cloudSecretRole, { backend: constructOrPathProp(CloudSecretBackend, 'a CloudSecretBackend') });

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
