/**
 * Shared pieces of the types' discovery facts (`DiscoverySpec`): reading listings, recursively where names form
 * a hierarchy, and the usual "objects of this type live in mounts of that engine type".
 */
import { isPlainObject, unwrapData } from './define';
import type { Attributes, DiscoveryRead, DiscoveryResult } from './types';

/** The names of a LIST answer: a bare array, or the envelope's `data.keys`; none when the answer was 404. */
export function listedNames(answer: unknown): string[] {
  if (answer === undefined) return [];
  const keys = Array.isArray(answer) ? answer : unwrapData(answer)?.keys;
  return Array.isArray(keys) ? keys.filter((key): key is string => typeof key === 'string') : [];
}

/**
 * Every name under `path`; with `hierarchical`, a name ending in `/` is a folder listed again under it
 * (`team/` -> `team/a`, `team/b`), so the result holds full names only, sorted.
 */
export async function listAllNames(read: DiscoveryRead, path: string, hierarchical: boolean): Promise<string[]> {
  const names: string[] = [];
  const visit = async (prefix: string): Promise<void> => {
    const listed = listedNames(await read({ method: 'LIST', path: prefix === '' ? path : `${path}/${prefix.replace(/\/$/, '')}` }));
    await Promise.all(
      listed.map(async (name) => {
        if (hierarchical && name.endsWith('/')) await visit(`${prefix}${name}`);
        else names.push(`${prefix}${name}`);
      }),
    );
  };
  await visit('');
  return names.sort();
}

/** Discovery of objects named under a collection of each mount of one engine type (`<mount>/roles/<name>`). */
export function namedInMount(engineType: string, collection: string, nameField: string, hierarchical: boolean) {
  return {
    within: 'secrets_mount',
    async find(read: DiscoveryRead, mount: Attributes | undefined): Promise<DiscoveryResult> {
      if (!mount || mount.type !== engineType) return { found: [] };
      const names = await listAllNames(read, `${String(mount.path)}/${collection}`, hierarchical);
      return { found: names.map((name) => ({ mount: mount.path, [nameField]: name })) };
    },
  };
}

/** Discovery of an engine's one configuration object in each mount of its engine type (absent ones read as such). */
export function configOfMount(engineType: string) {
  return {
    within: 'secrets_mount',
    find: (_read: DiscoveryRead, mount: Attributes | undefined): Promise<DiscoveryResult> =>
      Promise.resolve({ found: mount && mount.type === engineType ? [{ path: mount.path }] : [] }),
  };
}

/** Keys of `data` that are neither field names nor known read-only keys. */
export function keysBesides(data: Record<string, unknown>, known: Iterable<string>): string[] {
  const knownSet = new Set(known);
  return Object.keys(data).filter((key) => !knownSet.has(key)).sort();
}

export { isPlainObject };
