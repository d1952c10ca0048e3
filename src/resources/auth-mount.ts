import { consequenceOf, countListed } from './consequences';
import { defineResourceType } from './define';
import { field, mountPathFacts } from './field';
import { MOUNT_PATH } from './formats';
import { mountBehaviour } from './mount';
import { CONTENT_NOUNS } from './nouns';

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
  // Disabling an auth method deletes its users and revokes every token they logged in for.
  async consequences(identity, live, read) {
    if (live.type !== 'userpass') return [];
    const mount = String(identity.path);
    const counted = await countListed(read, `auth/${mount}/users`);
    return consequenceOf(counted, CONTENT_NOUNS.users, `the users of auth method ${JSON.stringify(mount)} are deleted with it, and their tokens revoked`);
  },
});
