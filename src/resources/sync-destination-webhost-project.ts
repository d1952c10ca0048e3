import { field } from './field';
import { defineDestinationType } from './sync-destination';

export const DEPLOYMENT_ENVIRONMENTS = ['development', 'preview', 'production'] as const;

export const syncDestinationWebhostProject = defineDestinationType({
  destinationType: 'webhost-project',
  type: 'sync_destination_webhost_project',
  construct: 'SyncWebhostProjectDestination',
  doc: 'A web-host project environment-variables sync destination.',
  connection: [
    field('access_token', 'string', 'Token allowed to manage environment variables.', { sensitive: true }),
    field('project_id', 'string', 'Project id.', { immutable: true }),
    field('team_id', 'string', 'Team id.', { serviceDefault: '' }),
    field('deployment_environments', 'stringList', 'Environments: development, preview, production.', { unordered: true }),
  ],
  defaultGranularity: 'secret-key',
  customTags: false,
});
