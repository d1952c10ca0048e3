import { field } from './field';
import { defineDestinationType } from './sync-destination';

export const syncDestinationCloud1Sm = defineDestinationType({
  destinationType: 'cloud1-sm',
  type: 'sync_destination_cloud1_sm',
  construct: 'SyncCloud1SmDestination',
  doc: 'A cloud1 secrets-manager sync destination.',
  connection: [
    field('access_key_id', 'string', "Access key id; with `secretAccessKey`. Omitted: the credential provider chain of the server's environment.", {
      sensitive: true,
    }),
    field('secret_access_key', 'string', 'Secret access key; with `accessKeyId`.', { sensitive: true }),
    field('role_arn', 'string', 'Role to assume (temporary credentials).', { serviceDefault: '' }),
    field('external_id', 'string', "Value that must match the role's trust policy.", { serviceDefault: '' }),
    field('region', 'string', 'Region of the secrets manager; identifies the remote store.', { immutable: true, defaultDoc: "the server environment's region" }),
  ],
  defaultGranularity: 'secret-path',
  defaultNameTemplate: 'svc/{{ .MountAccessor }}/{{ .SecretPath }}',
  customTags: true,
});
