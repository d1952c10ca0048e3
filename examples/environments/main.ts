/**
 * One app, three stacks, two services: a platform team's environments as code.
 *
 * - `base`: what every production login needs, on the production service: the userpass auth method and the KV v2
 *   mount the applications read from;
 * - `prod`: the production logins (CI and the on-call engineer), on the same service; it depends on `base`
 *   (`prod.addDependency(base)`), so `base` is applied first and destroyed last;
 * - `staging`: its own auth method and CI login, on the staging service.
 *
 * Each stack says which service it lives on with a `ServiceConnection`, as a cdktf provider block would: the
 * address, and the name of the variable that holds the token (STAGING_SERVICE_TOKEN, PROD_SERVICE_TOKEN), never the
 * token. `SERVICE_ADDR` and `SERVICE_TOKEN` play no part: a stack with a connection always talks to its address.
 *
 * The addresses are those of your services; here they come from ENVIRONMENTS_STAGING_ADDR and
 * ENVIRONMENTS_PROD_ADDR (passed to the app with `--synth-env 'ENVIRONMENTS_*'`) so that the walkthrough
 * (walkthrough.ts) can point them at two dev servers on free ports. In a project of your own the import is
 * `from 'secretform'`; this example imports the sources so that it always runs against the current code.
 */
import { App, TerraformStack } from 'cdktf';
import { AuthMount, SecretsMount, SecretValue, ServiceConnection, UserpassUser } from '../../src';

const STAGING_ADDR = process.env.ENVIRONMENTS_STAGING_ADDR ?? 'https://staging.secrets.example.com:8200';
const PROD_ADDR = process.env.ENVIRONMENTS_PROD_ADDR ?? 'https://secrets.example.com:8200';

const app = new App();

// --- base: shared by every production stack, on the production service.
const base = new TerraformStack(app, 'base');
new ServiceConnection(base, 'service', { address: PROD_ADDR, tokenEnv: 'PROD_SERVICE_TOKEN' });
new AuthMount(base, 'userpass', { path: 'userpass', type: 'userpass', description: 'logins of people and CI' });
new SecretsMount(base, 'apps', { path: 'apps', type: 'kv', options: { version: '2' }, description: 'application secrets' });

// --- prod: production logins, on the same service; the auth method is base's (named by its path: constructs
// of another stack are not referenced directly).
const prod = new TerraformStack(app, 'prod');
prod.addDependency(base);
new ServiceConnection(prod, 'service', { address: PROD_ADDR, tokenEnv: 'PROD_SERVICE_TOKEN' });
new UserpassUser(prod, 'ci-bot', {
  mount: 'userpass',
  username: 'ci-bot',
  password: SecretValue.fromEnv('PROD_CI_BOT_PASSWORD'),
  tokenPolicies: ['deployer'],
  tokenTtl: '15m',
});
new UserpassUser(prod, 'on-call', {
  mount: 'userpass',
  username: 'on-call',
  password: SecretValue.fromEnv('PROD_ON_CALL_PASSWORD'),
  tokenPolicies: ['operator'],
  tokenTtl: '8h',
});

// --- staging: a service of its own, with its own auth method and a CI login with longer tokens.
const staging = new TerraformStack(app, 'staging');
new ServiceConnection(staging, 'service', { address: STAGING_ADDR, tokenEnv: 'STAGING_SERVICE_TOKEN' });
const stagingLogins = new AuthMount(staging, 'userpass', { path: 'userpass', type: 'userpass' });
new UserpassUser(staging, 'ci-bot', {
  mount: stagingLogins,
  username: 'ci-bot',
  password: SecretValue.fromEnv('STAGING_CI_BOT_PASSWORD'),
  tokenPolicies: ['deployer'],
  tokenTtl: '1h',
});

app.synth();
