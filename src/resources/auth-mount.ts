import { defineResourceType } from './define';
import { field, mountPathFacts } from './field';
import { MOUNT_PATH } from './formats';
import { mountBehaviour } from './mount';

export const AUTH_METHOD_TYPES = ['userpass'] as const;

/** An auth method enabled at a path (`sys/auth/<path>`). */
export const authMount = defineResourceType({
  type: 'auth_mount',
  construct: 'AuthMount',
  doc: 'An auth method enabled at a path.',
  fields: [
    field('path', 'string', 'Path the auth method is mounted at, without "auth/" and without leading or trailing "/".', {
      identity: true, immutable: true, required: true, format: MOUNT_PATH, ...mountPathFacts('auth'),
    }),
    field('type', 'string', 'Auth method type: `userpass`.', { immutable: true, inBody: true, required: true, allowed: AUTH_METHOD_TYPES }),
    field('description', 'string', 'Human-readable description of the mount.', { serviceDefault: '', emptyAllowed: true }),
  ],
  ...mountBehaviour('auth_mount', 'sys/auth', AUTH_METHOD_TYPES),
});
