import { ServiceError } from '../service-error';
import { ancestorKeys, SubtreeIndex } from './subtree-index';
import { AttributeValueIndex } from './value-index';

/** One directory entry. Attribute names keep the case they were written with; lookups ignore case. */
export interface DirectoryEntry {
  dn: string;
  attributes: Record<string, string[]>;
}

export type ModifyOperation = 'add' | 'replace' | 'delete';

export interface AttributeChange {
  op: ModifyOperation;
  attribute: string;
  /** For `delete`, an empty list removes the whole attribute. */
  values: string[];
}

/** A directory server's error, in the form the directory engine reports it (LDAP result code and text). */
export class DirectoryError extends ServiceError {
  constructor(
    readonly resultCode: number,
    readonly resultName: string,
    detail: string,
  ) {
    super(500, [`LDAP Result Code ${resultCode} "${resultName}": ${detail}`]);
  }
}

/** DNs compare case-insensitively and without spaces around separators. */
export function normalizeDn(dn: string): string {
  return dn
    .split(',')
    .map((rdn) =>
      rdn
        .split('=')
        .map((part) => part.trim())
        .join('='),
    )
    .join(',')
    .toLowerCase();
}

export function parentDn(dn: string): string {
  const comma = dn.indexOf(',');
  return comma < 0 ? '' : dn.slice(comma + 1).trim();
}

/**
 * The in-memory directory that the directory engine manages: static roles rotate passwords of its entries,
 * library sets check its accounts out, and dynamic roles add and delete entries through LDIF.
 */
export class Directory {
  private readonly entries = new Map<string, StoredEntry>();
  /** Kept in step with `entries` by add, modify and delete, so that lookups need not read every entry. */
  private readonly values = new AttributeValueIndex();
  private readonly subtrees = new SubtreeIndex();
  private nextOrder = 0;

  constructor(seed: DirectoryEntry[] = []) {
    // Seeds may list children before parents: add in order of depth.
    const byDepth = [...seed].sort((a, b) => a.dn.split(',').length - b.dn.split(',').length);
    for (const entry of byDepth) this.add(entry.dn, entry.attributes);
  }

  get(dn: string): DirectoryEntry | undefined {
    const entry = this.entries.get(normalizeDn(dn));
    return entry && { dn: entry.dn, attributes: cloneAttributes(entry.attributes) };
  }

  has(dn: string): boolean {
    return this.entries.has(normalizeDn(dn));
  }

  /** Every entry, in insertion order (for inspection by tests). */
  all(): DirectoryEntry[] {
    return [...this.entries.values()].map((e) => ({ dn: e.dn, attributes: cloneAttributes(e.attributes) }));
  }

  add(dn: string, attributes: Record<string, string[]>): void {
    const key = normalizeDn(dn);
    if (this.entries.has(key)) throw new DirectoryError(68, 'Entry Already Exists', dn);
    const parent = parentDn(dn);
    // Naming contexts (entries whose parent is not itself under an existing entry) need no parent.
    if (parent && !this.entries.has(normalizeDn(parent)) && this.isUnderExistingEntry(parent)) {
      throw new DirectoryError(32, 'No Such Object', `parent ${parent} does not exist`);
    }
    const entry = { dn, attributes: cloneAttributes(attributes), order: this.nextOrder++ };
    this.entries.set(key, entry);
    this.values.add(key, entry.attributes);
    this.subtrees.add(key);
  }

  delete(dn: string): void {
    const key = normalizeDn(dn);
    const entry = this.entries.get(key);
    if (!entry) throw new DirectoryError(32, 'No Such Object', dn);
    if (this.subtrees.hasEntriesBelow(key)) throw new DirectoryError(66, 'Not Allowed On Non-leaf', dn);
    this.entries.delete(key);
    this.values.remove(key, entry.attributes);
    this.subtrees.remove(key);
  }

  modify(dn: string, changes: AttributeChange[]): void {
    const key = normalizeDn(dn);
    const entry = this.entries.get(key);
    if (!entry) throw new DirectoryError(32, 'No Such Object', dn);
    const next = cloneAttributes(entry.attributes);
    for (const change of changes) {
      const name = findAttributeName(next, change.attribute) ?? change.attribute;
      const current = next[name] ?? [];
      if (change.op === 'replace') {
        if (change.values.length === 0) delete next[name];
        else next[name] = [...change.values];
      } else if (change.op === 'add') {
        for (const value of change.values) {
          if (current.includes(value)) {
            throw new DirectoryError(20, 'Attribute Or Value Exists', `${change.attribute}: ${value}`);
          }
        }
        next[name] = [...current, ...change.values];
      } else {
        if (!(name in next)) throw new DirectoryError(16, 'No Such Attribute', change.attribute);
        if (change.values.length === 0) delete next[name];
        else {
          const remaining = current.filter((v) => !change.values.includes(v));
          if (remaining.length === current.length) {
            throw new DirectoryError(16, 'No Such Attribute', `${change.attribute}: ${change.values.join(', ')}`);
          }
          if (remaining.length === 0) delete next[name];
          else next[name] = remaining;
        }
      }
    }
    this.values.remove(key, entry.attributes);
    entry.attributes = next;
    this.values.add(key, next);
  }

  /** Entries at or below `baseDn` whose attribute `attribute` has `value` (case-insensitive, like most schemas). */
  search(baseDn: string, attribute: string, value: string): DirectoryEntry[] {
    const base = normalizeDn(baseDn);
    const found: StoredEntry[] = [];
    for (const key of this.values.lookup(attribute, value)) {
      if (base && key !== base && !key.endsWith(`,${base}`)) continue;
      found.push(this.entries.get(key)!);
    }
    // The index keeps no order: answer in insertion order, as a walk over every entry would.
    found.sort((a, b) => a.order - b.order);
    return found.map((entry) => ({ dn: entry.dn, attributes: cloneAttributes(entry.attributes) }));
  }

  /** The entry's current `userPassword`, if any. */
  password(dn: string): string | undefined {
    const entry = this.entries.get(normalizeDn(dn));
    if (!entry) return undefined;
    const name = findAttributeName(entry.attributes, 'userPassword');
    return name ? entry.attributes[name][0] : undefined;
  }

  setPassword(dn: string, password: string): void {
    this.modify(dn, [{ op: 'replace', attribute: 'userPassword', values: [password] }]);
  }

  /** A simple bind: the entry exists and its `userPassword` equals the password. */
  bind(dn: string, password: string): void {
    const stored = this.password(dn);
    if (stored === undefined || stored !== password) {
      throw new DirectoryError(49, 'Invalid Credentials', `bind as ${dn} failed`);
    }
  }

  private isUnderExistingEntry(dn: string): boolean {
    const key = normalizeDn(dn);
    return this.entries.has(key) || ancestorKeys(key).some((ancestor) => this.entries.has(ancestor));
  }
}

interface StoredEntry extends DirectoryEntry {
  /** When the entry was added, relative to the others: listings keep this order. */
  order: number;
}

function findAttributeName(attributes: Record<string, string[]>, name: string): string | undefined {
  const lower = name.toLowerCase();
  return Object.keys(attributes).find((k) => k.toLowerCase() === lower);
}

function cloneAttributes(attributes: Record<string, string[]>): Record<string, string[]> {
  const copy: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(attributes)) copy[k] = [...v];
  return copy;
}
