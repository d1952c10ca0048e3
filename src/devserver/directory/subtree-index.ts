/**
 * How many entries lie below each DN, so that deleting an entry can tell whether it still has children
 * without reading every entry. Keys are normalized DNs; "below" is what `other.endsWith(`,${key}`)` says, so
 * an entry added under a DN that does not exist (a naming context added later) counts too.
 */
export class SubtreeIndex {
  private readonly below = new Map<string, number>();

  add(key: string): void {
    for (const ancestor of ancestorKeys(key)) this.below.set(ancestor, (this.below.get(ancestor) ?? 0) + 1);
  }

  remove(key: string): void {
    for (const ancestor of ancestorKeys(key)) {
      const count = (this.below.get(ancestor) ?? 0) - 1;
      if (count > 0) this.below.set(ancestor, count);
      else this.below.delete(ancestor);
    }
  }

  hasEntriesBelow(key: string): boolean {
    return this.below.has(key);
  }
}

/** Every key that `key` ends with after one of its commas: `b,c` and `c` for `a,b,c`. */
export function ancestorKeys(key: string): string[] {
  const ancestors: string[] = [];
  for (let comma = key.indexOf(','); comma >= 0; comma = key.indexOf(',', comma + 1)) {
    ancestors.push(key.slice(comma + 1));
  }
  return ancestors;
}
