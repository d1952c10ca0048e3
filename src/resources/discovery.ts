/**
 * Shared pieces of the types' discovery facts (`DiscoverySpec`): the shape of a LIST answer, reading listings,
 * recursively where names form a hierarchy, and the usual "objects of this type live in mounts of that engine
 * type".
 */
import { listFromBody } from '../client/response-shapes';
import { isPlainObject } from './define';
import type { Attributes, DiscoveryResult, ListingRead, ListingShape } from './types';

/**
 * A LIST answer: `data.keys`, an array of strings (service-api.md; the directory engine answers a bare JSON array,
 * deployed servers the envelope: both are read, as the client's `listFromBody` reads them). No body, or a body of
 * another shape (`{}`, `data` without `keys`, names that are not strings), is no listing: read as one, it would
 * be an empty area. An envelope whose `data` is null lists nothing.
 */
export const NAME_LISTING: ListingShape = {
  expected: 'the list of names the service answers (an array of strings: data.keys, or a bare JSON array)',
  problem(body) {
    if (body === undefined) return 'no body';
    if (body === null) return 'a JSON null';
    const listed = listFromBody(body);
    return listed.ok ? undefined : listed.detail;
  },
};

/** The names of a LIST answer that has `NAME_LISTING`'s shape; none when the answer was 404. */
export function listedNames(answer: unknown): string[] {
  if (answer === undefined) return [];
  const listed = listFromBody(answer);
  return listed.ok ? listed.value : [];
}

/** The names a LIST of `path` answers (checked against `NAME_LISTING`); none when it answered 404. */
export async function readNames(read: ListingRead, path: string): Promise<string[]> {
  return listedNames(await read({ method: 'LIST', path, answers: NAME_LISTING }));
}

/**
 * Every name under `path`; with `hierarchical`, a name ending in `/` is a folder listed again under it
 * (`team/` -> `team/a`, `team/b`), so the result holds full names only, sorted.
 */
export async function listAllNames(read: ListingRead, path: string, hierarchical: boolean): Promise<string[]> {
  const names: string[] = [];
  const visit = async (prefix: string): Promise<void> => {
    const listed = await readNames(read, prefix === '' ? path : `${path}/${prefix.replace(/\/$/, '')}`);
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
    async find(read: ListingRead, mount: Attributes | undefined): Promise<DiscoveryResult> {
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
    find: (_read: ListingRead, mount: Attributes | undefined): Promise<DiscoveryResult> =>
      Promise.resolve({ found: mount && mount.type === engineType ? [{ path: mount.path }] : [] }),
    foundUnlisted: true,
  };
}

/** Keys of `data` that are neither field names nor known read-only keys. */
export function keysBesides(data: Record<string, unknown>, known: Iterable<string>): string[] {
  const knownSet = new Set(known);
  return Object.keys(data).filter((key) => !knownSet.has(key)).sort();
}

export { isPlainObject };
