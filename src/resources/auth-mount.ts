import { defineResourceType } from './define';
import { field, mountPathFacts } from './field';
import { mountBehaviour } from './mount';

/** An auth method enabled at a path (`sys/auth/<path>`). */
export const authMount = defineResourceType({
  type: 'auth_mount',
  construct: 'AuthMount',
  doc: 'An auth method enabled at a path.',
  fields: [
    field('path', 'string', 'Path the auth method is mounted at (no leading or trailing "/").', { identity: true, immutable: true, ...mountPathFacts('auth') }),
    field('type', 'string', 'Auth method type: "userpass".', { immutable: true, inBody: true }),
    field('description', 'string', 'Human-readable description of the mount.', { serviceDefault: '' }),
  ],
  ...mountBehaviour('auth_mount', 'sys/auth'),
});
