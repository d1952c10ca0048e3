/**
 * Long-lived keys a person must rotate by hand, where the service offers something better: a GitHub app instead
 * of a personal access token, an assumed role instead of access keys, workload identity instead of a client
 * secret.
 */
import { definePolicy } from '../policy';
import { hasText, modelField, secretInUse, secretIsSet } from './model-facts';

const REPOHOST = 'sync_destination_repohost';
const REPOHOST_ACCESS_TOKEN = modelField(REPOHOST, 'access_token');
const CLOUD1 = 'sync_destination_cloud1_sm';
const CLOUD1_SECRET_ACCESS_KEY = modelField(CLOUD1, 'secret_access_key');
const CLOUD1_ROLE_ARN = modelField(CLOUD1, 'role_arn');
const CLOUD2 = 'sync_destination_cloud2_kv';
const CLOUD2_CLIENT_SECRET = modelField(CLOUD2, 'client_secret');
const CLOUD_BACKEND = 'cloud_secret_backend';
const BACKEND_CLIENT_SECRET = modelField(CLOUD_BACKEND, 'client_secret');

export const repohostDestinationApp = definePolicy({
  id: 'repohost-destination-app',
  description: 'Repository destinations authenticate as a GitHub app, not with a personal access token tied to a person and their every repository.',
  enforcement: 'advisory',
  resourceTypes: [REPOHOST],
  check: secretInUse(REPOHOST_ACCESS_TOKEN, 'uses a personal access token; give `app` (a SyncGithubApp) and `installationId` instead'),
});

export const cloud1DestinationRole = definePolicy({
  id: 'cloud1-destination-role',
  description: 'Cloud1 secrets-manager destinations assume a role (role_arn) for temporary credentials instead of only holding static access keys.',
  enforcement: 'advisory',
  resourceTypes: [CLOUD1],
  check(resource) {
    if (!secretIsSet(resource, CLOUD1_SECRET_ACCESS_KEY) || hasText(resource, CLOUD1_ROLE_ARN)) return [];
    return [{ field: CLOUD1_SECRET_ACCESS_KEY.api, message: 'static access keys without a role; set roleArn (and externalId), or drop the keys where the service has ambient credentials' }];
  },
});

export const cloud2DestinationClientSecret = definePolicy({
  id: 'cloud2-destination-client-secret',
  description: 'Cloud2 key-vault destinations avoid client secrets, which expire and are rotated by hand; prefer the managed identity of the service\'s host.',
  enforcement: 'advisory',
  resourceTypes: [CLOUD2],
  check: secretInUse(CLOUD2_CLIENT_SECRET, 'uses a client secret; drop clientSecret where the service runs with a managed identity, else rotate it on a schedule'),
});

export const cloudBackendWorkloadIdentity = definePolicy({
  id: 'cloud-backend-workload-identity',
  description: 'The cloud engine authenticates with workload identity (identity_token_audience) rather than a long-lived client secret.',
  enforcement: 'advisory',
  resourceTypes: [CLOUD_BACKEND],
  check: secretInUse(BACKEND_CLIENT_SECRET, 'uses a client secret; configure identityTokenAudience (workload identity federation) instead'),
});
