import { listAllNames } from './discovery';
import { defineResourceType, matchPath, samePathApi } from './define';
import { field, mountField } from './field';
import { CIDR, USERPASS_USERNAME } from './formats';
import { ImportIdError } from './types';

export const TOKEN_TYPES = ['service', 'batch', 'default'] as const;

/** A user of the userpass auth method (`auth/<mount>/users/<username>`). */
export const userpassUser = defineResourceType({
  type: 'userpass_user',
  construct: 'UserpassUser',
  doc: 'A user of the userpass auth method.',
  fields: [
    mountField('Mount path of the userpass auth method (without "auth/").', 'auth'),
    field('username', 'string', 'User name: letters, digits, "_", "-", "."; not starting with "-"; not starting or ending with ".". The service lower-cases it.', {
      identity: true, immutable: true, caseInsensitive: true, required: true, format: USERPASS_USERNAME, segment: 'single',
    }),
    field('password', 'string', 'Password; exactly one of `password` and `passwordHash`. Set on creation; a changed value is sent through the password endpoint.', {
      sensitive: true,
    }),
    field('password_hash', 'string', 'Pre-hashed password in bcrypt format; exactly one of `password` and `passwordHash`.', { sensitive: true }),
    field('token_ttl', 'duration', 'Incremental lifetime of generated tokens; at most `tokenMaxTtl`.', { serviceDefault: 0, defaultDoc: "0 (the mount's default)" }),
    field('token_max_ttl', 'duration', 'Maximum lifetime of generated tokens.', { serviceDefault: 0, defaultDoc: "0 (the mount's default)" }),
    field('token_policies', 'stringList', 'Policies encoded onto generated tokens.', { unordered: true, caseInsensitive: true, serviceDefault: [] }),
    field('policies', 'stringList', 'Policies encoded onto generated tokens (the old name of `tokenPolicies`).', {
      unordered: true, caseInsensitive: true, deprecated: 'use `tokenPolicies`',
    }),
    field('token_bound_cidrs', 'stringList', 'CIDR blocks (or single addresses) from which authentication succeeds.', {
      unordered: true, serviceDefault: [], format: CIDR, defaultDoc: 'anywhere',
    }),
    field('token_explicit_max_ttl', 'duration', 'Hard cap on the lifetime of generated tokens.', { serviceDefault: 0, defaultDoc: '0 (none)' }),
    field('token_no_default_policy', 'bool', 'Do not add the `default` policy to generated tokens.', { serviceDefault: false }),
    field('token_num_uses', 'int', 'Maximum uses of a generated token; 0 is unlimited (and needed to create child tokens).', { serviceDefault: 0, minimum: 0 }),
    field('token_period', 'duration', 'Maximum period of a periodic token.', { serviceDefault: 0, defaultDoc: '0 (none)' }),
    field('token_type', 'string', "Token type: `service`, `batch` or `default` (the mount's tuned default).", { serviceDefault: 'default', allowed: TOKEN_TYPES }),
  ],
  writeSemantics: 'merge',
  id: (spec) => `auth/${String(spec.mount)}/users/${String(spec.username)}`,
  // Disabling the auth method deletes its users.
  livesIn: (identity) => [`sys/auth/${String(identity.mount)}`],
  parseImportId(importId) {
    const match = matchPath(importId, /^auth\/(.+)\/users\/([^/]+)$/);
    if (!match) throw new ImportIdError('userpass_user', importId, 'auth/<mount>/users/<username>');
    return { mount: match[1], username: match[2].toLowerCase() };
  },
  api: (spec) => samePathApi(`auth/${String(spec.mount)}/users/${String(spec.username)}`),
  discover: {
    within: 'auth_mount',
    async find(read, mount) {
      if (!mount || mount.type !== 'userpass') return { found: [] };
      const names = await listAllNames(read, `auth/${String(mount.path)}/users`, false);
      return { found: names.map((username) => ({ mount: mount.path, username })) };
    },
    // The server keeps a hash only; the code cannot tell a password from a pre-hashed one: it asks for a password.
    secretsHeld: () => ['password'],
  },
  // The user's write takes a password on creation only; a changed one goes through the password endpoint.
  secretWriteCalls: (spec) => ({ password: { method: 'POST', path: `auth/${String(spec.mount)}/users/${String(spec.username)}/password` } }),
  operations: [
    {
      name: 'login',
      doc: "Logs in with the user's password from the code: a token with its accessor, policies and lease.",
      call: (spec, input) => ({
        method: 'POST',
        path: `auth/${String(spec.mount)}/login/${String(spec.username)}`,
        body: { password: input.secrets?.password ?? '' },
      }),
      returnsCredentials: true,
      options: [],
      secretInputs: ['password'],
      anonymous: true,
    },
  ],
  dependsOn: (spec) => [`sys/auth/${String(spec.mount)}`],
});
