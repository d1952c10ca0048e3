import type { KvAccess, KvEvents } from '../types';

/** Versions kept per secret when neither the mount config nor the secret sets `max_versions`. */
export const DEFAULT_MAX_VERSIONS = 10;

export interface KvVersion {
  version: number;
  data: Record<string, unknown> | null;
  createdTime: number;
  /** Soft-delete time (epoch ms); undefined while live. */
  deletionTime?: number;
  destroyed: boolean;
}

export interface KvSecret {
  versions: Map<number, KvVersion>;
  currentVersion: number;
  oldestVersion: number;
  createdTime: number;
  updatedTime: number;
  /** 0 = use the mount's setting. */
  maxVersions: number;
  casRequired: boolean;
  customMetadata: Record<string, string> | null;
}

/** A KV v2 mount's settings (`<mount>/config`). */
export interface KvMountConfig {
  /** 0 = the default of DEFAULT_MAX_VERSIONS. */
  maxVersions: number;
  casRequired: boolean;
  deleteVersionAfter: string;
}

export interface KvMountData {
  config: KvMountConfig;
  secrets: Map<string, KvSecret>;
}

type Listener = (mountPath: string, secretName: string) => void;

/**
 * The secrets of every KV version 2 mount, by mount path. The KV area of a mount works on its own entry;
 * secret sync reads through `KvAccess` and listens through `KvEvents`.
 */
export class KvStore implements KvAccess, KvEvents {
  private readonly mounts = new Map<string, KvMountData>();
  private readonly writeListeners: Listener[] = [];
  private readonly deleteListeners: Listener[] = [];

  /** The data of a mount, created empty on first use. */
  mount(mountPath: string): KvMountData {
    const key = trimSlashes(mountPath);
    let data = this.mounts.get(key);
    if (!data) {
      data = { config: { maxVersions: 0, casRequired: false, deleteVersionAfter: '0s' }, secrets: new Map() };
      this.mounts.set(key, data);
    }
    return data;
  }

  /** The mount was disabled: its secrets are gone. */
  dropMount(mountPath: string): void {
    this.mounts.delete(trimSlashes(mountPath));
  }

  read(mountPath: string, secretName: string): Record<string, unknown> | undefined {
    const secret = this.mounts.get(trimSlashes(mountPath))?.secrets.get(trimSlashes(secretName));
    if (!secret) return undefined;
    const latest = secret.versions.get(secret.currentVersion);
    if (!latest || latest.deletionTime !== undefined || latest.destroyed || latest.data === null) return undefined;
    return structuredClone(latest.data);
  }

  onWrite(listener: Listener): void {
    this.writeListeners.push(listener);
  }

  onDelete(listener: Listener): void {
    this.deleteListeners.push(listener);
  }

  emitWrite(mountPath: string, secretName: string): void {
    for (const listener of this.writeListeners) listener(trimSlashes(mountPath), secretName);
  }

  emitDelete(mountPath: string, secretName: string): void {
    for (const listener of this.deleteListeners) listener(trimSlashes(mountPath), secretName);
  }
}

export function trimSlashes(path: string): string {
  return path.replace(/^\/+|\/+$/g, '');
}
