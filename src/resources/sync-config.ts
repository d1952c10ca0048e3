import { defineResourceType, matchPath } from './define';
import { field } from './field';
import { ImportIdError } from './types';

const MERGE_PATCH = 'application/merge-patch+json';

/** The global secret-sync configuration (`sys/sync/config`); deleting it resets the defaults. */
export const syncConfig = defineResourceType({
  type: 'sync_config',
  construct: 'SyncConfig',
  doc: 'The global secret-sync configuration.',
  fields: [
    field('disabled', 'bool', 'Suspend syncing to external destinations (operations queue as PENDING until re-enabled).', { serviceDefault: false }),
    field('queue_capacity', 'int', 'Maximum number of pending sync operations.', { serviceDefault: 1000000, minimum: 1 }),
  ],
  writeSemantics: 'merge',
  id: () => 'sys/sync/config',
  parseImportId(importId) {
    if (!matchPath(importId, /^sys\/sync\/config$/)) throw new ImportIdError('sync_config', importId, 'sys/sync/config');
    return {};
  },
  // One object per server, always present (with the service's defaults until set).
  discover: { find: () => Promise.resolve({ found: [{}] }), foundUnlisted: true },
  api: () => ({
    read: { method: 'GET', path: 'sys/sync/config' },
    create: { method: 'PATCH', path: 'sys/sync/config', contentType: MERGE_PATCH },
    update: { method: 'PATCH', path: 'sys/sync/config', contentType: MERGE_PATCH },
    delete: { method: 'DELETE', path: 'sys/sync/config' },
  }),
});
