import { field } from './field';
import { DIGITS } from './formats';
import { defineDestinationType } from './sync-destination';

export const syncDestinationRepohost = defineDestinationType({
  destinationType: 'repohost',
  type: 'sync_destination_repohost',
  construct: 'SyncRepohostDestination',
  doc: 'A repository-host action-secrets sync destination.',
  connection: [
    field('access_token', 'string', 'Fine-grained or personal access token; exactly one of `accessToken` and `app`.', { sensitive: true }),
    field('app_name', 'string', 'Name of a custom app stored under sys/sync/github-apps.', { prop: 'app', setByConstruct: true, segment: 'single' }),
    field('installation_id', 'string', 'Installation id of the app; required with `app`.', { format: DIGITS('the installation id') }),
    field('repository_owner', 'string', 'Organization or user owning the repository; identifies the remote store.', { immutable: true, required: true }),
    field('repository_name', 'string', 'Repository name; identifies the remote store.', { immutable: true, required: true }),
  ],
  defaultGranularity: 'secret-key',
  customTags: false,
  dependsOn: (spec) => (typeof spec.app_name === 'string' ? [`sys/sync/github-apps/${spec.app_name}`] : []),
});
