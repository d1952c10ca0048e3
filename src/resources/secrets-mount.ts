import { defineResourceType } from './define';
import { field, mountPathFacts } from './field';
import { mountBehaviour } from './mount';

/** A secrets engine enabled at a path (`sys/mounts/<path>`). */
export const secretsMount = defineResourceType({
  type: 'secrets_mount',
  construct: 'SecretsMount',
  doc: 'A secrets engine enabled at a path.',
  fields: [
    field('path', 'string', 'Path the engine is mounted at (no leading or trailing "/").', { identity: true, immutable: true, ...mountPathFacts('secrets') }),
    field('type', 'string', 'Engine type: "kv" (with options.version "2"), "cloud" or "ldap".', { immutable: true, inBody: true }),
    field('description', 'string', 'Human-readable description of the mount.', { serviceDefault: '' }),
    field('options', 'stringMap', 'Engine options; KV version 2 is {"version": "2"}.', { immutable: true }),
  ],
  ...mountBehaviour('secrets_mount', 'sys/mounts'),
});
