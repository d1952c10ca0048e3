import { consequenceOf, countListed } from './consequences';
import { defineResourceType, isPlainObject } from './define';
import { field, mountPathFacts } from './field';
import { MOUNT_PATH } from './formats';
import { mountBehaviour } from './mount';
import type { Attributes, Consequence, ConsequenceRead } from './types';
import { CONTENT_NOUNS, type Noun } from './nouns';

export const SECRETS_ENGINE_TYPES = ['kv', 'cloud', 'ldap'] as const;

/** A secrets engine enabled at a path (`sys/mounts/<path>`). */
export const secretsMount = defineResourceType({
  type: 'secrets_mount',
  construct: 'SecretsMount',
  doc: 'A secrets engine enabled at a path.',
  fields: [
    field('path', 'string', 'Path the engine is mounted at, without leading or trailing "/" (e.g. `secret`, `cloud`, `team/ldap`).', {
      identity: true, immutable: true, required: true, format: MOUNT_PATH, ...mountPathFacts('secrets'),
    }),
    field('type', 'string', 'Engine type: `kv` (use `options: { version: "2" }` for KV version 2), `cloud` or `ldap`.', {
      immutable: true, inBody: true, required: true, allowed: SECRETS_ENGINE_TYPES,
    }),
    field('description', 'string', 'Human-readable description of the mount.', { serviceDefault: '', emptyAllowed: true }),
    field('options', 'stringMap', 'Engine options; only `kv` takes one: `version` ("1" or "2"). Secret sync needs version "2".', {
      immutable: true,
      defaultDoc: 'none (a `kv` mount without options is version 1)',
      members: [field('version', 'string', 'KV version.', { allowed: ['1', '2'] })],
    }),
  ],
  ...mountBehaviour('secrets_mount', 'sys/mounts', SECRETS_ENGINE_TYPES),
  consequences: engineObjectsLost,
  // A KV mount's secrets are written by applications, never by secretform's code: an adopted one is protected.
  holdsUnmanagedData: (live) => live.type === 'kv',
});

/** What each engine type holds under its mount, listed as `<mount>/<list path>`. */
const ENGINE_CONTENTS: Readonly<Record<string, readonly { listPath: (live: Attributes) => string; what: Noun }[]>> = {
  kv: [{ listPath: (live) => (isPlainObject(live.options) && live.options.version === '2' ? 'metadata' : ''), what: CONTENT_NOUNS.secrets }],
  cloud: [{ listPath: () => 'roles', what: CONTENT_NOUNS.roles }],
  ldap: [
    { listPath: () => 'static-role', what: CONTENT_NOUNS.staticRoles },
    { listPath: () => 'role', what: CONTENT_NOUNS.dynamicRoles },
    { listPath: () => 'library', what: CONTENT_NOUNS.librarySets },
  ],
};

/** Disabling a mount deletes everything stored under it (and revokes its leases): counted per kind of object. */
async function engineObjectsLost(identity: Attributes, live: Attributes, read: ConsequenceRead): Promise<Consequence[]> {
  const mount = String(identity.path);
  const consequences: Consequence[] = [];
  for (const { listPath, what } of ENGINE_CONTENTS[String(live.type)] ?? []) {
    const sub = listPath(live);
    const counted = await countListed(read, sub === '' ? mount : `${mount}/${sub}`);
    consequences.push(...consequenceOf(counted, what, `the ${what.many} stored in ${String(live.type)} mount ${JSON.stringify(mount)} are deleted with it (and its leases revoked)`));
  }
  return consequences;
}
