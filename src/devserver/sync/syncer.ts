// Pushing secrets to destinations and removing them (sync / unsync), the queue of operations that waits
// while syncing is disabled, and the reaction to KV changes of associated secrets.
import { ServiceError } from '../respond';
import type { ServerContext } from '../types';
import { DESTINATION_TYPES } from './destination-types';
import {
  associationKey,
  destinationKey,
  type Association,
  type AssociationEntry,
  type Destination,
  type QueuedOperation,
} from './model';
import type { SyncState } from './sync-state';
import { renderSecretName } from './secret-name';

/** One resource to hold in the external store: the whole secret (secret-path) or one key (secret-key). */
interface SyncUnit {
  entryKey: string;
  subKey?: string;
  value: string;
}

export const SYNCED = 'SYNCED';
export const UNSYNCED = 'UNSYNCED';
export const PENDING = 'PENDING';

export class Syncer {
  constructor(
    private readonly state: SyncState,
    private readonly ctx: ServerContext,
  ) {}

  /** `associations/set`: creates the link if needed, then syncs it now or queues it while disabled. */
  requestSet(destination: Destination, mount: string, accessor: string, secretName: string): Association {
    const key = associationKey(accessor, secretName);
    if (this.state.config.disabled) this.enqueue({ kind: 'sync', destinationKey: keyOf(destination), associationKey: key });
    let association = destination.associations.get(key);
    if (!association) {
      association = { mount, accessor, secretName, entries: new Map() };
      destination.associations.set(key, association);
      this.state.associationsBySecret.add(destination, association);
    }
    if (this.state.config.disabled) this.markPending(destination, association);
    else this.sync(destination, association);
    return association;
  }

  /**
   * `associations/remove`: unsyncs now (the association disappears unless the store failed) or queues the
   * unsync while disabled. The association's entries then show the resulting status.
   */
  requestRemove(destination: Destination, association: Association): void {
    const key = associationKey(association.accessor, association.secretName);
    if (this.state.config.disabled) {
      this.enqueue({ kind: 'unsync', destinationKey: keyOf(destination), associationKey: key });
      this.markPending(destination, association);
      return;
    }
    this.unsync(destination, association);
  }

  /** A KV write or delete of a secret: every association of it is synced again (or queued). */
  onSecretChanged(mount: string, secretName: string): void {
    for (const { destination, association } of this.state.associationsBySecret.of(mount, secretName)) {
      if (destination.purgeInitiatedAt === undefined) this.resyncOrQueue(destination, association);
    }
  }

  /** The destination's granularity, template or tags changed: what it holds is pushed again. */
  onDestinationChanged(destination: Destination): void {
    for (const association of destination.associations.values()) this.resyncOrQueue(destination, association);
  }

  /** Syncing was re-enabled: run every queued operation, in arrival order. */
  processQueue(): void {
    const operations = [...this.state.queue.values()];
    this.state.queue.clear();
    for (const operation of operations) {
      const destination = this.state.destinations.get(operation.destinationKey);
      const association = destination?.associations.get(operation.associationKey);
      if (!destination || !association) continue;
      if (operation.kind === 'sync') this.sync(destination, association);
      else this.unsync(destination, association);
    }
  }

  /** Completes a purge (or a forced delete): every external secret is deleted and the destination removed. */
  removeDestination(destination: Destination): void {
    const key = keyOf(destination);
    for (const association of destination.associations.values()) {
      for (const entry of association.entries.values()) {
        if (entry.externalName !== undefined) this.state.external.delete(key, entry.externalName);
      }
    }
    this.state.associationsBySecret.removeDestination(destination);
    destination.associations.clear();
    for (const [queueKey, operation] of this.state.queue) {
      if (operation.destinationKey === key) this.state.queue.delete(queueKey);
    }
    this.state.external.dropStore(key);
    this.state.destinations.delete(key);
    this.state.purgesDue.delete(key);
  }

  /** Pushes the association's secret to the destination and records the outcome as the entries' status. */
  private sync(destination: Destination, association: Association): void {
    const now = this.ctx.now();
    const storeKey = keyOf(destination);
    const failure = this.state.external.failureOf(storeKey);
    if (failure !== undefined) {
      this.ensureEntries(destination, association);
      setStatus(association, failure, now);
      return;
    }
    const data = this.readSource(association);
    if (data === undefined) {
      // The source secret is gone: so is its copy in the external store.
      this.deleteExternal(storeKey, association);
      if (association.entries.size === 0) association.entries.set('', { status: '', updatedAt: now });
      setStatus(
        association,
        `SECRET_NOT_FOUND: secret "${association.secretName}" does not exist in mount "${association.mount}"`,
        now,
      );
      return;
    }
    const units = unitsOf(destination, data);
    const wanted = new Set(units.map((u) => u.entryKey));
    for (const [entryKey, entry] of association.entries) {
      if (wanted.has(entryKey)) continue;
      if (entry.externalName !== undefined) this.state.external.delete(storeKey, entry.externalName);
      association.entries.delete(entryKey);
    }
    for (const unit of units) {
      let entry = association.entries.get(unit.entryKey);
      if (!entry) {
        entry = { status: '', updatedAt: now };
        if (unit.subKey !== undefined) entry.subKey = unit.subKey;
        association.entries.set(unit.entryKey, entry);
      }
      entry.updatedAt = now;
      let externalName: string;
      try {
        externalName = renderSecretName(templateOf(destination), {
          MountAccessor: association.accessor,
          SecretPath: association.secretName,
          SecretKey: unit.subKey,
        });
      } catch (error) {
        entry.status = `TEMPLATE_ERROR: secret_name_template of destination "${storeKey}": ${(error as Error).message}`;
        continue;
      }
      if (entry.externalName !== undefined && entry.externalName !== externalName) {
        this.state.external.delete(storeKey, entry.externalName);
      }
      this.state.external.put(storeKey, externalName, { value: unit.value, tags: { ...destination.customTags } });
      entry.externalName = externalName;
      entry.status = SYNCED;
    }
  }

  /** Deletes the association's secrets from the external store; on success the association is dropped. */
  private unsync(destination: Destination, association: Association): void {
    const now = this.ctx.now();
    const failure = this.state.external.failureOf(keyOf(destination));
    if (failure !== undefined) {
      setStatus(association, failure, now);
      return;
    }
    this.deleteExternal(keyOf(destination), association);
    setStatus(association, UNSYNCED, now);
    destination.associations.delete(associationKey(association.accessor, association.secretName));
    this.state.associationsBySecret.remove(association);
  }

  /** KV-change and destination-change path: never throws; a full queue shows up in the status instead. */
  private resyncOrQueue(destination: Destination, association: Association): void {
    if (!this.state.config.disabled) {
      this.sync(destination, association);
      return;
    }
    const key = associationKey(association.accessor, association.secretName);
    // An operation already queued re-reads the secret when it runs (and a queued unsync must stay one).
    if (this.state.queue.has(queueKey(keyOf(destination), key))) return;
    try {
      this.enqueue({ kind: 'sync', destinationKey: keyOf(destination), associationKey: key });
      this.markPending(destination, association);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      setStatus(association, `QUEUE_FULL: ${error.errors.join('; ')}`, this.ctx.now());
    }
  }

  /** Adds or replaces the association's queued operation; a new one beyond queue_capacity is refused. */
  private enqueue(operation: QueuedOperation): void {
    const key = queueKey(operation.destinationKey, operation.associationKey);
    const capacity = this.state.config.queueCapacity;
    if (!this.state.queue.has(key) && this.state.queue.size >= capacity) {
      throw new ServiceError(400, [
        `sync queue is full: ${this.state.queue.size} operations are pending and queue_capacity is ${capacity}; ` +
          're-enable syncing or raise queue_capacity',
      ]);
    }
    this.state.queue.delete(key); // re-insert so the queue keeps arrival order of the latest intent
    this.state.queue.set(key, operation);
  }

  private markPending(destination: Destination, association: Association): void {
    this.ensureEntries(destination, association);
    setStatus(association, PENDING, this.ctx.now());
  }

  /** A new association gets its entries (one per unit of the current secret) before any push happens. */
  private ensureEntries(destination: Destination, association: Association): void {
    const now = this.ctx.now();
    const data = this.readSource(association);
    const units = data === undefined ? [{ entryKey: '' } as SyncUnit] : unitsOf(destination, data);
    for (const unit of units) {
      if (association.entries.has(unit.entryKey)) continue;
      const entry: AssociationEntry = { status: '', updatedAt: now };
      if (unit.subKey !== undefined) entry.subKey = unit.subKey;
      association.entries.set(unit.entryKey, entry);
    }
  }

  /** The secret's current data, or undefined when it is gone or its mount was replaced by another one. */
  private readSource(association: Association): Record<string, unknown> | undefined {
    const mount = this.ctx.mounts.secretsMount(association.mount);
    if (!mount || mount.accessor !== association.accessor) return undefined;
    return this.ctx.kv.read(association.mount, association.secretName);
  }

  private deleteExternal(storeKey: string, association: Association): void {
    for (const entry of association.entries.values()) {
      if (entry.externalName !== undefined) this.state.external.delete(storeKey, entry.externalName);
      delete entry.externalName;
    }
  }
}

const keyOf = (destination: Destination): string => destinationKey(destination.type, destination.name);
const queueKey = (destKey: string, assocKey: string): string => `${destKey}|${assocKey}`;

function setStatus(association: Association, status: string, now: number): void {
  for (const entry of association.entries.values()) {
    entry.status = status;
    entry.updatedAt = now;
  }
}

export function templateOf(destination: Destination): string {
  if (destination.secretNameTemplate !== undefined) return destination.secretNameTemplate;
  const type = DESTINATION_TYPES.get(destination.type);
  if (!type) throw new Error(`sync: destination "${destination.name}" has unknown type "${destination.type}"`);
  return type.defaultNameTemplate(destination.granularity);
}

function unitsOf(destination: Destination, data: Record<string, unknown>): SyncUnit[] {
  if (destination.granularity === 'secret-path') return [{ entryKey: '', value: JSON.stringify(data) }];
  return Object.keys(data)
    .sort()
    .map((subKey) => {
      const value = data[subKey];
      return { entryKey: subKey, subKey, value: typeof value === 'string' ? value : JSON.stringify(value) };
    });
}
