/**
 * How generated code sets the fields a construct takes from another construct (`setByConstruct` in the model):
 * a role's mount from its `backend`, a user's from its auth `mount`, an association's destination and mount,
 * a repohost destination's app. These are facts of the hand-written construct classes, not of the service.
 */
import type { Attributes } from '../resources/types';

export interface ConstructReference {
  /** The construct prop that takes the reference. */
  readonly prop: string;
  /** The model fields the reference sets. */
  readonly fields: readonly string[];
  /** Id of the object whose construct is referred to; undefined when the fields are not set. */
  targetId(attributes: Attributes): string | undefined;
  /** The plain value the prop takes when that object has no construct (a mount path); none: it must have one. */
  fallback?(attributes: Attributes): unknown;
}

/** The construct of each engine type's configuration, which mounts the engine itself unless `manageMount: false`. */
export const ENGINE_BACKENDS: Readonly<Record<string, string>> = { cloud: 'cloud_secret_backend', ldap: 'ldap_secret_backend' };

const backend: ConstructReference = {
  prop: 'backend',
  fields: ['mount'],
  targetId: (attributes) => `${String(attributes.mount)}/config`,
  fallback: (attributes) => attributes.mount,
};

export const CONSTRUCT_REFERENCES: Readonly<Record<string, readonly ConstructReference[]>> = {
  cloud_secret_role: [backend],
  ldap_static_role: [backend],
  ldap_dynamic_role: [backend],
  ldap_library_set: [backend],
  userpass_user: [{ prop: 'mount', fields: ['mount'], targetId: (a) => `sys/auth/${String(a.mount)}`, fallback: (a) => a.mount }],
  sync_association: [
    {
      prop: 'destination',
      fields: ['destination_type', 'destination_name'],
      targetId: (a) => `sys/sync/destinations/${String(a.destination_type)}/${String(a.destination_name)}`,
    },
    { prop: 'mount', fields: ['mount'], targetId: (a) => `sys/mounts/${String(a.mount)}`, fallback: (a) => a.mount },
  ],
  sync_destination_repohost: [
    {
      prop: 'app',
      fields: ['app_name'],
      targetId: (a) => (a.app_name === undefined || a.app_name === '' ? undefined : `sys/sync/github-apps/${String(a.app_name)}`),
      fallback: (a) => a.app_name,
    },
  ],
  // An engine's configuration sets its mount path itself (`path`, the engine type unless given).
  cloud_secret_backend: [],
  ldap_secret_backend: [],
};
