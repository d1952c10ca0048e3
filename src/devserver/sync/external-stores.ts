// Emulation of the external secret stores that destinations point at: what has been pushed where, and a
// switch that makes a destination's store fail so tests can observe failure statuses.

export interface ExternalSecret {
  value: string;
  tags: Record<string, string>;
}

export class ExternalStores {
  private readonly stores = new Map<string, Map<string, ExternalSecret>>();
  private readonly failures = new Map<string, string>();

  /** With a cause set, every sync or unsync to that destination fails and reports the cause as status. */
  setFailure(destinationKey: string, cause: string | null): void {
    if (cause === null) this.failures.delete(destinationKey);
    else this.failures.set(destinationKey, cause);
  }

  failureOf(destinationKey: string): string | undefined {
    return this.failures.get(destinationKey);
  }

  put(destinationKey: string, name: string, secret: ExternalSecret): void {
    let store = this.stores.get(destinationKey);
    if (!store) {
      store = new Map();
      this.stores.set(destinationKey, store);
    }
    store.set(name, secret);
  }

  /** Deleting a secret that is not there succeeds (unsync is idempotent). */
  delete(destinationKey: string, name: string): void {
    const store = this.stores.get(destinationKey);
    if (!store) return;
    store.delete(name);
    if (store.size === 0) this.stores.delete(destinationKey);
  }

  dropStore(destinationKey: string): void {
    this.stores.delete(destinationKey);
  }

  /** Plain copy: destination key -> external secret name -> value and tags. */
  snapshot(): Record<string, Record<string, ExternalSecret>> {
    const out: Record<string, Record<string, ExternalSecret>> = {};
    for (const [key, store] of this.stores) {
      out[key] = {};
      for (const [name, secret] of store) out[key][name] = { value: secret.value, tags: { ...secret.tags } };
    }
    return out;
  }
}
