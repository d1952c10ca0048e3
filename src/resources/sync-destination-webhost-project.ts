import { field } from './field';
import { defineDestinationType } from './sync-destination';

export const DEPLOYMENT_ENVIRONMENTS = ['development', 'preview', 'production'] as const;

export const syncDestinationWebhostProject = defineDestinationType({
  destinationType: 'webhost-project',
  type: 'sync_destination_webhost_project',
  construct: 'SyncWebhostProjectDestination',
  doc: 'A web-host project environment-variables sync destination.',
  connection: [
    field('access_token', 'string', "Token allowed to manage the project's environment variables.", { sensitive: true, required: true }),
    field('project_id', 'string', 'Project id; identifies the remote store.', { immutable: true, required: true }),
    field('team_id', 'string', 'Team id.', { serviceDefault: '' }),
    field('deployment_environments', 'stringList', 'Environments to sync to: one or more of `development`, `preview`, `production`.', {
      unordered: true, required: true, allowed: DEPLOYMENT_ENVIRONMENTS, nonEmpty: true, unique: 'environment',
    }),
  ],
  defaultGranularity: 'secret-key',
  customTags: false,
});
