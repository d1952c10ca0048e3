import { listAllNames } from './discovery';
import { createHash } from 'node:crypto';
import { defineResourceType, matchPath, samePathApi } from './define';
import { field } from './field';
import { DIGITS, SEGMENT_NAME } from './formats';
import { ImportIdError } from './types';

/** A custom repository-host app used to authenticate repohost destinations (`sys/sync/github-apps/<name>`). */
export const syncGithubApp = defineResourceType({
  type: 'sync_github_app',
  construct: 'SyncGithubApp',
  doc: 'A custom repository-host app for repohost destinations.',
  fields: [
    field('name', 'string', 'App name (referenced by repohost destinations).', { identity: true, immutable: true, required: true, format: SEGMENT_NAME, segment: 'single' }),
    // Sent as a string, read back as an integer: the canonical form is the string.
    field('app_id', 'string', 'App id at the repository host (digits).', { required: true, format: DIGITS('the app id') }),
    field('private_key', 'string', 'Private key of the app (PEM).', { sensitive: true, required: true }),
  ],
  // private_key is required on every write, so a write carries the whole object.
  writeSemantics: 'replace',
  id: (spec) => `sys/sync/github-apps/${spec.name}`,
  parseImportId(importId) {
    const match = matchPath(importId, /^sys\/sync\/github-apps\/([^/]+)$/);
    if (!match) throw new ImportIdError('sync_github_app', importId, 'sys/sync/github-apps/<name>');
    return { name: match[1] };
  },
  api: (spec) => samePathApi(`sys/sync/github-apps/${spec.name}`),
  discover: {
    find: async (read) => ({ found: (await listAllNames(read, 'sys/sync/github-apps', false)).map((name) => ({ name })) }),
    // The key's fingerprint (the key itself is never returned; its check is `verifySecret`).
    readOnlyKeys: ['fingerprint'],
  },
  // The read carries a SHA-256 fingerprint of the private key: the one secret the service lets us check.
  verifySecret(field, value, liveData) {
    const fingerprint = liveData?.fingerprint;
    if (field !== 'private_key' || typeof fingerprint !== 'string' || fingerprint === '') return undefined;
    return createHash('sha256').update(value, 'utf8').digest('hex') === fingerprint.toLowerCase() ? 'same' : 'different';
  },
  // The service reads app_id back as an integer: "007" in code is stored and read as 7.
  alignWithDesired: (read, desired) =>
    typeof desired.app_id === 'string' && /^\d+$/.test(desired.app_id) && read.app_id === BigInt(desired.app_id).toString()
      ? { ...read, app_id: desired.app_id }
      : read,
});
