/**
 * Names in generated code: construct ids from the objects' names (valid, unique, stable for a given server),
 * TypeScript variable names from construct ids, environment variable names for secrets.
 */

/** A construct id from a name: letters, digits, `-` and `_`; other runs of characters (`/`, spaces) become `-`. */
export function constructIdFrom(name: string, fallback: string): string {
  const id = name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/-{2,}/g, '-').replace(/^-+|-+$/g, '');
  return id === '' ? fallback : id;
}

/** Hands out unique names: a wanted name, else it with a qualifier, else numbered (`name-2`, `name-3` ...). */
export class UniqueNames {
  private readonly taken = new Set<string>();

  constructor(reserved: Iterable<string> = [], private readonly normalise: (name: string) => string = (name) => name) {
    for (const name of reserved) this.taken.add(this.normalise(name));
  }

  claim(wanted: string, qualified: string, join: (base: string, n: number) => string): string {
    for (const candidate of [wanted, qualified]) {
      if (!this.taken.has(this.normalise(candidate))) {
        this.taken.add(this.normalise(candidate));
        return candidate;
      }
    }
    for (let n = 2; ; n += 1) {
      const candidate = join(qualified, n);
      if (!this.taken.has(this.normalise(candidate))) {
        this.taken.add(this.normalise(candidate));
        return candidate;
      }
    }
  }
}

const RESERVED_WORDS = new Set(
  ('break case catch class const continue debugger default delete do else enum export extends false finally for function if '
    + 'import in instanceof new null return super switch this throw true try typeof var void while with as implements interface '
    + 'let package private protected public static yield any boolean number string symbol type from of await async').split(' '),
);

/** A camelCase TypeScript identifier for a construct id (`payments-prod` -> `paymentsProd`). */
export function variableNameFor(constructId: string): string {
  const words = constructId.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  let name = words.map((word, index) => (index === 0 ? word.charAt(0).toLowerCase() + word.slice(1) : word.charAt(0).toUpperCase() + word.slice(1))).join('');
  if (name === '') name = 'resource';
  if (/^[0-9]/.test(name)) name = `_${name}`;
  if (RESERVED_WORDS.has(name)) name = `${name}Resource`;
  return name;
}

/** An environment variable name for a secret of a construct (`payments-prod`, `access_key_id` -> `PAYMENTS_PROD_ACCESS_KEY_ID`). */
export function environmentVariableFor(constructId: string, field: string): string {
  const name = `${constructId}_${field}`.replace(/[^A-Za-z0-9]+/g, '_').replace(/_{2,}/g, '_').replace(/^_+|_+$/g, '').toUpperCase();
  return /^[0-9]/.test(name) ? `_${name}` : name;
}
