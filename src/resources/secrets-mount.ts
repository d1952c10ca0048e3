import { defineResourceType } from './define';
import { field, mountPathFacts } from './field';
import { MOUNT_PATH } from './formats';
import { mountBehaviour } from './mount';

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
});
