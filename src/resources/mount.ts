/** What secrets engines (`sys/mounts`) and auth methods (`sys/auth`) share: how they are enabled, read and tuned. */
import { isPlainObject, matchPath, type ResourceTypeDefinition } from './define';
import { ImportIdError } from './types';

/** Everything of a mount type but its names and fields: `<base>/<path>` is its id; create enables, update tunes. */
export function mountBehaviour(
  type: string,
  base: 'sys/mounts' | 'sys/auth',
): Pick<ResourceTypeDefinition, 'writeSemantics' | 'id' | 'parseImportId' | 'api' | 'readAttributes' | 'alignWithDesired' | 'writeBody'> {
  const pattern = new RegExp(`^${base}/(.+)$`);
  return {
    writeSemantics: 'create-only',
    id: (spec) => `${base}/${spec.path}`,
    parseImportId(importId) {
      const match = matchPath(importId, pattern);
      if (!match) throw new ImportIdError(type, importId, `${base}/<path>`);
      return { path: match[1] };
    },
    api: (spec) => ({
      // The service lists mounts at `<base>` keyed "<path>/"; there is no per-mount read in the document.
      read: { method: 'GET', path: base },
      create: { method: 'POST', path: `${base}/${spec.path}` },
      update: { method: 'POST', path: `${base}/${spec.path}/tune` },
      delete: { method: 'DELETE', path: `${base}/${spec.path}` },
    }),
    readAttributes: (data, identity) => mountEntry(data, String(identity.path)),
    // The listing reports an engine without options as null (read as absent); `options: {}` in code is the same.
    alignWithDesired: (read, desired) =>
      read.options === undefined && isPlainObject(desired.options) && Object.keys(desired.options).length === 0 ? { ...read, options: {} } : read,
    writeBody(desired, options) {
      if (!options.create) return desired.description === undefined ? {} : { description: desired.description };
      const body: Record<string, unknown> = { type: desired.type };
      if (desired.description !== undefined) body.description = desired.description;
      if (desired.options !== undefined) body.options = desired.options;
      return body;
    },
  };
}

/** The entry of one mount in a `sys/mounts` or `sys/auth` listing, or null when it is not mounted. */
export function mountEntry(data: Record<string, unknown>, path: string): Record<string, unknown> | null {
  const entry = data[`${path}/`] ?? data[path];
  if (!isPlainObject(entry)) return null;
  const result: Record<string, unknown> = { type: entry.type, description: entry.description };
  // Engines without options report null; an empty object means the same.
  if (isPlainObject(entry.options) && Object.keys(entry.options).length > 0) result.options = entry.options;
  return result;
}
