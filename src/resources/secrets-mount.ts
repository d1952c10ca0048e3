import { defineResourceType, isPlainObject, matchPath } from './define';
import { field } from './field';
import { ImportIdError } from './types';

/** A secrets engine enabled at a path (`sys/mounts/<path>`). */
export const secretsMount = defineResourceType({
  type: 'secrets_mount',
  construct: 'SecretsMount',
  doc: 'A secrets engine enabled at a path.',
  fields: [
    field('path', 'string', 'Path the engine is mounted at (no leading or trailing "/").', { identity: true, immutable: true }),
    field('type', 'string', 'Engine type: "kv" (with options.version "2"), "cloud" or "ldap".', { immutable: true, inBody: true }),
    field('description', 'string', 'Human-readable description of the mount.', { serviceDefault: '' }),
    field('options', 'stringMap', 'Engine options; KV version 2 is {"version": "2"}.', { immutable: true }),
  ],
  writeSemantics: 'create-only',
  id: (spec) => `sys/mounts/${spec.path}`,
  parseImportId(importId) {
    const match = matchPath(importId, /^sys\/mounts\/(.+)$/);
    if (!match) throw new ImportIdError('secrets_mount', importId, 'sys/mounts/<path>');
    return { path: match[1] };
  },
  api: (spec) => ({
    // The service lists mounts at `sys/mounts` keyed "<path>/"; there is no per-mount read in the document.
    read: { method: 'GET', path: 'sys/mounts' },
    create: { method: 'POST', path: `sys/mounts/${spec.path}` },
    update: { method: 'POST', path: `sys/mounts/${spec.path}/tune` },
    delete: { method: 'DELETE', path: `sys/mounts/${spec.path}` },
    extra: {},
  }),
  readAttributes: (data, identity) => mountEntry(data, String(identity.path)),
  writeBody(desired, options) {
    if (!options.create) return desired.description === undefined ? {} : { description: desired.description };
    const body: Record<string, unknown> = { type: desired.type };
    if (desired.description !== undefined) body.description = desired.description;
    if (desired.options !== undefined) body.options = desired.options;
    return body;
  },
});

/** The entry of one mount in a `sys/mounts` or `sys/auth` listing, or null when it is not mounted. */
export function mountEntry(data: Record<string, unknown>, path: string): Record<string, unknown> | null {
  const entry = data[`${path}/`] ?? data[path];
  if (!isPlainObject(entry)) return null;
  const result: Record<string, unknown> = { type: entry.type, description: entry.description };
  // Engines without options report null; an empty object means the same.
  if (isPlainObject(entry.options) && Object.keys(entry.options).length > 0) result.options = entry.options;
  return result;
}
