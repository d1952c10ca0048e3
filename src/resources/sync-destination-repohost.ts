import { field } from './field';
import { defineDestinationType } from './sync-destination';

export const syncDestinationRepohost = defineDestinationType({
  destinationType: 'repohost',
  type: 'sync_destination_repohost',
  construct: 'SyncRepohostDestination',
  doc: 'A repository-host action-secrets sync destination.',
  connection: [
    field('access_token', 'string', 'Fine-grained or personal access token; alternative to an app.', { sensitive: true }),
    field('app_name', 'string', 'Name of a custom app stored under sys/sync/github-apps.', { prop: 'app', segment: 'single' }),
    field('installation_id', 'string', 'Installation id of the app; required with app_name.'),
    field('repository_owner', 'string', 'Organization or user owning the repository.', { immutable: true }),
    field('repository_name', 'string', 'Repository name.', { immutable: true }),
  ],
  defaultGranularity: 'secret-key',
  customTags: false,
  dependsOn: (spec) => (typeof spec.app_name === 'string' ? [`sys/sync/github-apps/${spec.app_name}`] : []),
});
