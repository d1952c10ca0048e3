import { configOfMount } from './discovery';
import { defineResourceType, matchPath, samePathApi } from './define';
import { field, mountPathFacts } from './field';
import { rotateRoot, rotateRootAfterCreateField } from './operation';
import { ImportIdError } from './types';

/** The cloud credential engine's configuration (`<path>/config`). */
export const cloudSecretBackend = defineResourceType({
  type: 'cloud_secret_backend',
  construct: 'CloudSecretBackend',
  doc: "The cloud credential engine's root credentials and settings.",
  fields: [
    field('path', 'string', 'Mount path of the cloud engine.', { identity: true, immutable: true, setByConstruct: true, ...mountPathFacts('secrets') }),
    field('subscription_id', 'string', 'Subscription id.', { required: true }),
    field('tenant_id', 'string', 'Tenant id.', { required: true }),
    field('client_id', 'string', 'OAuth2 client id; needed with `clientSecret`.', { serviceDefault: '' }),
    field('client_secret', 'string', 'OAuth2 client secret. Exactly one of `clientSecret` and `identityTokenAudience` is required.', {
      sensitive: true, rootCredential: true,
    }),
    field('identity_token_audience', 'string', '(Enterprise) Audience of plugin identity tokens (workload identity federation); exclusive with `clientSecret`.', {
      serviceDefault: '',
    }),
    field('identity_token_ttl', 'duration', '(Enterprise) Lifetime of generated identity tokens.', { serviceDefault: 3600 }),
    field('environment', 'string', 'Cloud environment.', { serviceDefault: '', emptyAllowed: true, defaultDoc: 'the public cloud' }),
    field('root_password_ttl', 'duration', 'Validity of the root client secret that rotate-root generates.', { serviceDefault: 15768000 }),
    rotateRootAfterCreateField('client secret'),
  ],
  writeSemantics: 'merge',
  id: (spec) => `${String(spec.path)}/config`,
  parseImportId(importId) {
    const match = matchPath(importId, /^(.+)\/config$/);
    if (!match) throw new ImportIdError('cloud_secret_backend', importId, '<path>/config');
    return { path: match[1] };
  },
  api: (spec) => samePathApi(`${String(spec.path)}/config`),
  discover: {
    ...configOfMount('cloud'),
    // Workload identity federation needs no client secret; otherwise the config holds one.
    secretsHeld: (data) => (data.identity_token_audience ? [] : ['client_secret']),
  },
  operations: [rotateRoot('cloud engine', 'client secret')],
  dependsOn: (spec) => [`sys/mounts/${String(spec.path)}`],
  // The engine's configuration is stored under its mount.
  livesIn: (identity) => [`sys/mounts/${String(identity.path)}`],
  // The config read answers 200 with empty values even when nothing was configured: that means "absent".
  readAttributes: (data) => (!data.subscription_id && !data.tenant_id ? null : data),
});
