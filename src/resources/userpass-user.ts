import { defineResourceType, matchPath, samePathApi } from './define';
import { field, mountField } from './field';
import { ImportIdError } from './types';

/** A user of the userpass auth method (`auth/<mount>/users/<username>`). */
export const userpassUser = defineResourceType({
  type: 'userpass_user',
  construct: 'UserpassUser',
  doc: 'A user of the userpass auth method.',
  fields: [
    mountField('Mount path of the userpass auth method (without "auth/").', 'auth'),
    field('username', 'string', 'User name (lower-cased by the server).', { identity: true, immutable: true, caseInsensitive: true, segment: 'single' }),
    field('password', 'string', 'Password; set on creation, changed through the password endpoint.', { sensitive: true }),
    field('password_hash', 'string', 'Pre-hashed password in bcrypt format.', { sensitive: true }),
    field('token_ttl', 'duration', 'Incremental lifetime of generated tokens.', { serviceDefault: 0 }),
    field('token_max_ttl', 'duration', 'Maximum lifetime of generated tokens.', { serviceDefault: 0 }),
    field('token_policies', 'stringList', 'Policies encoded onto generated tokens.', { unordered: true, caseInsensitive: true, serviceDefault: [] }),
    field('policies', 'stringList', 'Deprecated: use token_policies.', { unordered: true, caseInsensitive: true, deprecated: true }),
    field('token_bound_cidrs', 'stringList', 'CIDR blocks from which authentication succeeds.', { unordered: true, serviceDefault: [] }),
    field('token_explicit_max_ttl', 'duration', 'Hard cap on the lifetime of generated tokens.', { serviceDefault: 0 }),
    field('token_no_default_policy', 'bool', 'Do not add the default policy to tokens.', { serviceDefault: false }),
    field('token_num_uses', 'int', 'Maximum uses of a token; 0 is unlimited.', { serviceDefault: 0 }),
    field('token_period', 'duration', 'Maximum period of periodic tokens.', { serviceDefault: 0 }),
    field('token_type', 'string', 'Token type: service, batch or default.', { serviceDefault: 'default' }),
  ],
  writeSemantics: 'merge',
  id: (spec) => `auth/${spec.mount}/users/${spec.username}`,
  parseImportId(importId) {
    const match = matchPath(importId, /^auth\/(.+)\/users\/([^/]+)$/);
    if (!match) throw new ImportIdError('userpass_user', importId, 'auth/<mount>/users/<username>');
    return { mount: match[1], username: match[2].toLowerCase() };
  },
  api: (spec) => samePathApi(`auth/${spec.mount}/users/${spec.username}`, {
    password: { method: 'POST', path: `auth/${spec.mount}/users/${spec.username}/password` },
    policies: { method: 'POST', path: `auth/${spec.mount}/users/${spec.username}/policies` },
  }),
  dependsOn: (spec) => [`sys/auth/${spec.mount}`],
});
