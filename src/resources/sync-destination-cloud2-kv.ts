import { field } from './field';
import { defineDestinationType } from './sync-destination';

export const syncDestinationCloud2Kv = defineDestinationType({
  destinationType: 'cloud2-kv',
  type: 'sync_destination_cloud2_kv',
  construct: 'SyncCloud2KvDestination',
  doc: 'A cloud2 key-vault sync destination.',
  connection: [
    field('key_vault_uri', 'string', 'URI of an existing key vault.', { immutable: true }),
    field('client_id', 'string', 'Client id of the service principal.'),
    field('client_secret', 'string', 'Client secret of the service principal.', { sensitive: true }),
    field('tenant_id', 'string', 'Tenant id of the key vault.', { immutable: true }),
    field('cloud', 'string', 'Cloud environment of the key vault.', { immutable: true, serviceDefault: 'cloud' }),
  ],
  defaultGranularity: 'secret-path',
  customTags: true,
});
