import { field } from './field';
import { HTTPS_URI } from './formats';
import { defineDestinationType } from './sync-destination';

export const syncDestinationCloud2Kv = defineDestinationType({
  destinationType: 'cloud2-kv',
  type: 'sync_destination_cloud2_kv',
  construct: 'SyncCloud2KvDestination',
  doc: 'A cloud2 key-vault sync destination.',
  connection: [
    field('key_vault_uri', 'string', 'URI of an existing key vault, e.g. `https://my-vault.vault.example.net/`; identifies the remote store.', {
      immutable: true, required: true, format: HTTPS_URI,
    }),
    field('client_id', 'string', 'Client id of the service principal.', { required: true }),
    field('client_secret', 'string', 'Client secret of the service principal.', { sensitive: true, required: true }),
    field('tenant_id', 'string', 'Tenant id of the key vault; identifies the remote store.', { immutable: true, required: true }),
    field('cloud', 'string', 'Cloud environment of the key vault; identifies the remote store.', { immutable: true, serviceDefault: 'cloud' }),
  ],
  defaultGranularity: 'secret-path',
  customTags: true,
});
