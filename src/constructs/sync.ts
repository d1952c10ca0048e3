/** Secret sync: the global configuration and the associations of secrets with destinations. */
import type { Construct } from 'constructs';
import { z } from 'zod';
import { syncAssociation } from '../resources/sync-association';
import { syncConfig } from '../resources/sync-config';
import { SecretsMount } from './mounts';
import { constructOrPathSchema, resolveMountReference } from './references';
import { SecretformResource, type ResourceReference } from './resource';
import { SyncDestination } from './sync-destinations';
import { bool } from './validation';

export interface SyncConfigProps {
  /**
   * Suspend syncing to external destinations (operations queue as PENDING until re-enabled).
   * @default false
   */
  readonly disabled?: boolean;
  /**
   * Maximum number of pending sync operations.
   * @default 1000000
   */
  readonly queueCapacity?: number;
}

const configSchema = z.strictObject({
  disabled: bool.optional(),
  queueCapacity: z.number().int().min(1).optional(),
});

/** The global secret-sync configuration (`sys/sync/config`); one per stack. */
export class SyncConfig extends SecretformResource {
  constructor(scope: Construct, id: string, props: SyncConfigProps = {}) {
    super(scope, id, { resourceType: syncConfig, props, schema: configSchema });
  }
}

export interface SyncAssociationProps {
  /** The destination: any sync destination construct of this stack. */
  readonly destination: SyncDestination;
  /** The KV version 2 mount holding the secret: a `SecretsMount` of this stack, or its path. */
  readonly mount: SecretsMount | string;
  /** Path of the secret in the mount (without `data/`). */
  readonly secretName: string;
}

const associationSchema = z.strictObject({
  destination: z.custom<SyncDestination>((value) => value instanceof SyncDestination, { message: 'a sync destination construct (SyncCloud1SmDestination, ...)' }),
  mount: constructOrPathSchema(SecretsMount, 'a SecretsMount'),
  secretName: z.string().regex(/^[^/\s]+(\/[^/\s]+)*$/, { message: 'a secret path without leading, trailing or double "/" and without spaces' }),
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
        secret_name: props?.secretName,
      },
      nonFieldProps: ['destination', 'mount', 'secretName'],
      references: allReferences,
    });
  }
}
