/**
 * Which entries hold a value of an attribute, both compared case-insensitively: the directory's search looks
 * entries up here instead of reading every entry. The caller keeps it in step: `add` when an entry is stored,
 * `remove` (with the attributes it was added with) before the entry changes or goes.
 */
export class AttributeValueIndex {
  /** Lower-cased attribute name -> lower-cased value -> keys of the entries holding it. */
  private readonly byAttribute = new Map<string, Map<string, Set<string>>>();

  add(key: string, attributes: Record<string, string[]>): void {
    for (const [name, values] of searchedAttributes(attributes)) {
      let byValue = this.byAttribute.get(name);
      if (!byValue) this.byAttribute.set(name, (byValue = new Map<string, Set<string>>()));
      for (const value of values) {
        const lower = value.toLowerCase();
        let keys = byValue.get(lower);
        if (!keys) byValue.set(lower, (keys = new Set<string>()));
        keys.add(key);
      }
    }
  }

  remove(key: string, attributes: Record<string, string[]>): void {
    for (const [name, values] of searchedAttributes(attributes)) {
      const byValue = this.byAttribute.get(name);
      if (!byValue) continue;
      for (const value of values) {
        const lower = value.toLowerCase();
        const keys = byValue.get(lower);
        if (!keys) continue;
        keys.delete(key);
        if (keys.size === 0) byValue.delete(lower);
      }
      if (byValue.size === 0) this.byAttribute.delete(name);
    }
  }

  /** Keys of the entries whose `attribute` has `value` (ignoring case of both), in no particular order. */
  lookup(attribute: string, value: string): ReadonlySet<string> {
    return this.byAttribute.get(attribute.toLowerCase())?.get(value.toLowerCase()) ?? NONE;
  }
}

const NONE: ReadonlySet<string> = new Set();

/**
 * The attributes a search can match, by lower-cased name: when names differ only in case, a search reads the
 * first one (see the directory's `findAttributeName`), so only that one is indexed.
 */
function searchedAttributes(attributes: Record<string, string[]>): Map<string, string[]> {
  const searched = new Map<string, string[]>();
  for (const [name, values] of Object.entries(attributes)) {
    const lower = name.toLowerCase();
    if (!searched.has(lower)) searched.set(lower, values);
  }
  return searched;
}
