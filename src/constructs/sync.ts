/** Secret sync: the global configuration and the associations of secrets with destinations. */
import type { Construct } from 'constructs';
import { syncAssociation } from '../resources/sync-association';
import { syncConfig } from '../resources/sync-config';
import { SecretsMount } from './mounts';
import { customProp } from './prop-declaration';
import { constructOrPathProp, resolveMountReference } from './references';
import { SecretformResource, type ResourceReference } from './resource';
import type { SyncAssociationFields, SyncConfigFields } from './generated/fields';
import { propsSchema } from './props-schema';
import { SyncDestination } from './sync-destinations';

export interface SyncConfigProps extends SyncConfigFields {}

const configSchema = propsSchema(syncConfig);

/** The global secret-sync configuration (`sys/sync/config`); one per stack. */
export class SyncConfig extends SecretformResource {
  constructor(scope: Construct, id: string, props: SyncConfigProps = {}) {
    super(scope, id, { resourceType: syncConfig, props, schema: configSchema });
  }
}

export interface SyncAssociationProps extends SyncAssociationFields {
  /** The destination: any sync destination construct of this stack. */
  readonly destination: SyncDestination;
  /** The KV version 2 mount holding the secret: a `SecretsMount` of this stack, or its path. */
  readonly mount: SecretsMount | string;
}

const associationSchema = propsSchema(syncAssociation, {
  destination: customProp((value) => value instanceof SyncDestination, 'a sync destination construct (SyncCloud1SmDestination, ...)'),
  mount: constructOrPathProp(SecretsMount, 'a SecretsMount'),
});

/** Links a KV-v2 secret to a destination (`sys/sync/destinations/<type>/<name>/associations/<mount>/<secret>`). */
export class SyncAssociation extends SecretformResource {
  constructor(scope: Construct, id: string, props: SyncAssociationProps) {
    const destination = props?.destination;
    const isDestination = destination instanceof SyncDestination;
    const { mount, references } = resolveMountReference('mount', props?.mount, (target) => (target as SecretsMount).path);
    const allReferences: ResourceReference[] = isDestination ? [{ prop: 'destination', target: destination }, ...references] : references;
    super(scope, id, {
      resourceType: syncAssociation,
      props,
      schema: associationSchema,
      derived: {
        destination_type: isDestination ? destination.destinationType : undefined,
        destination_name: isDestination ? destination.name : undefined,
        mount,
      },
      nonFieldProps: ['destination', 'mount'],
      references: allReferences,
    });
  }
}
