import { defineResourceType, matchPath } from './define';
import { field } from './field';
import { mountEntry } from './secrets-mount';
import { ImportIdError } from './types';

/** An auth method enabled at a path (`sys/auth/<path>`). */
export const authMount = defineResourceType({
  type: 'auth_mount',
  construct: 'AuthMount',
  doc: 'An auth method enabled at a path.',
  fields: [
    field('path', 'string', 'Path the auth method is mounted at (no leading or trailing "/").', { identity: true, immutable: true }),
    field('type', 'string', 'Auth method type: "userpass".', { immutable: true, inBody: true }),
    field('description', 'string', 'Human-readable description of the mount.', { serviceDefault: '' }),
  ],
  writeSemantics: 'create-only',
  id: (spec) => `sys/auth/${spec.path}`,
  parseImportId(importId) {
    const match = matchPath(importId, /^sys\/auth\/(.+)$/);
    if (!match) throw new ImportIdError('auth_mount', importId, 'sys/auth/<path>');
    return { path: match[1] };
  },
  api: (spec) => ({
    read: { method: 'GET', path: 'sys/auth' },
    create: { method: 'POST', path: `sys/auth/${spec.path}` },
    update: { method: 'POST', path: `sys/auth/${spec.path}/tune` },
    delete: { method: 'DELETE', path: `sys/auth/${spec.path}` },
    extra: {},
  }),
  readAttributes: (data, identity) => mountEntry(data, String(identity.path)),
  writeBody(desired, options) {
    if (!options.create) return desired.description === undefined ? {} : { description: desired.description };
    const body: Record<string, unknown> = { type: desired.type };
    if (desired.description !== undefined) body.description = desired.description;
    return body;
  },
});
