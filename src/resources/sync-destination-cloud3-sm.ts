import { field } from './field';
import { defineDestinationType } from './sync-destination';

export const syncDestinationCloud3Sm = defineDestinationType({
  destinationType: 'cloud3-sm',
  type: 'sync_destination_cloud3_sm',
  construct: 'SyncCloud3SmDestination',
  doc: 'A cloud3 secret-manager sync destination.',
  connection: [
    field('credentials', 'string', 'JSON credentials of the service account (file contents).', { sensitive: true, required: true }),
    field('project_id', 'string', 'Project that overrides the one derived from the credentials.', { immutable: true, defaultDoc: "the credentials' project" }),
  ],
  defaultGranularity: 'secret-path',
  customTags: true,
});
