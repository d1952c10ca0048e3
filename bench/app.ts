// The bench's cdktf app, run by `secretform synth` like a user's app: BENCH_SIZE resources (see mix.ts). It uses
// the compiled package (dist/), as an app depending on secretform would.
import { join } from 'node:path';
import { DOMAIN, mixFor } from './mix';

// The bench runs this file transpiled to plain JavaScript (like an app compiled before synth) from a
// temporary directory, so the project root comes from BENCH_ROOT.
const root = process.env.BENCH_ROOT ?? join(__dirname, '..');
/* eslint-disable @typescript-eslint/no-require-imports */
const { App, TerraformStack } = require(join(root, 'node_modules', 'cdktf')) as typeof import('cdktf');
/* eslint-enable @typescript-eslint/no-require-imports */

const size = Number(process.env.BENCH_SIZE ?? '1000');
// BENCH_STACKS: that many stacks of BENCH_SIZE objects each (a fleet: `--synth` measures 100 x 1,000); one
// stack, named BENCH_STACK or `bench`, by default.
const stackCount = Number(process.env.BENCH_STACKS ?? '1');
const stackName = process.env.BENCH_STACK ?? 'bench';
const mix = mixFor(size);
const app = new App();

// secretform's package, loaded only by the variant that uses it: the plain variant is the reference of what a
// plain cdktf app costs (`--synth`), and a plain cdktf app does not load secretform's modules (issue 35).
function secretform(): typeof import('../src') {
  return require(join(root, 'dist')) as typeof import('../src'); // eslint-disable-line @typescript-eslint/no-require-imports
}

// BENCH_PLAIN: the same number of plain terraform_data resources and no secretform construct, to show what cdktf
// itself costs for a stack of this size (`--huge`, `--synth`). Made as generic TerraformResources: cdktf's
// DataResource class adds a validation to each that runs `terraform version` at synth, 10,000 processes that would
// measure terraform.
function addPlainResources(stack: InstanceType<typeof TerraformStack>): void {
  const { TerraformResource } = require(join(root, 'node_modules', 'cdktf')) as typeof import('cdktf'); // eslint-disable-line @typescript-eslint/no-require-imports
  for (let i = 0; i < size; i++) {
    new TerraformResource(stack, `plain-${i}`, { terraformResourceType: 'terraform_data' }).addOverride('input', { name: `plain-${i}`, ttl: 3600 });
  }
}

function addBenchResources(stack: InstanceType<typeof TerraformStack>, sf: typeof import('../src')): void {
  const { SecretValue } = sf;
  const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  const ldap = new sf.LdapSecretBackend(stack, 'ldap', { binddn: `cn=admin,${DOMAIN}`, bindpass: SecretValue.fromEnv('BENCH_SECRET_0'), userdn: `ou=users,${DOMAIN}` });
  const cloud = new sf.CloudSecretBackend(stack, 'cloud', {
    subscriptionId: '11111111-2222-3333-4444-555555555555',
    tenantId: '66666666-7777-8888-9999-000000000000',
    clientId: 'bench-client',
    clientSecret: SecretValue.fromEnv('BENCH_SECRET_1'),
  });
  for (let i = 0; i < mix.users; i++) {
    new sf.UserpassUser(stack, `user-${i}`, { mount: userpass, username: `user-${i}`, password: SecretValue.fromEnv(`BENCH_PASSWORD_${i}`), tokenPolicies: ['default', `team-${i % 7}`], tokenTtl: '1h' });
  }
  for (let i = 0; i < mix.staticRoles; i++) {
    new sf.LdapStaticRole(stack, `static-${i}`, { backend: ldap, name: `static-${i}`, username: `account-${i}`, rotationPeriod: '24h' });
  }
  for (let i = 0; i < mix.dynamicRoles; i++) {
    new sf.LdapDynamicRole(stack, `dynamic-${i}`, {
      backend: ldap,
      name: `dynamic-${i}`,
      creationLdif: `dn: cn={{.Username}},ou=dynamic,${DOMAIN}\nobjectClass: person\ncn: {{.Username}}\nsn: dyn\nuserPassword: {{.Password}}\n`,
      deletionLdif: `dn: cn={{.Username}},ou=dynamic,${DOMAIN}\nchangetype: delete\n`,
      defaultTtl: '1h',
      maxTtl: '24h',
    });
  }
  for (let i = 0; i < mix.librarySets; i++) {
    new sf.LdapLibrarySet(stack, `library-${i}`, { backend: ldap, name: `library-${i}`, serviceAccountNames: [`account-${mix.staticRoles + i}`] });
  }
  for (let i = 0; i < mix.cloudRoles; i++) {
    new sf.CloudSecretRole(stack, `cloud-role-${i}`, {
      backend: cloud,
      name: `cloud-role-${i}`,
      cloudRoles: [{ scope: `/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/rg-${i}`, roleName: 'Reader' }],
      ttl: '1h',
      maxTtl: '2h',
    });
  }
  const destinations = [];
  for (let i = 0; i < mix.destinationsPerType; i++) {
    destinations.push(
      new sf.SyncCloud1SmDestination(stack, `cloud1-${i}`, { name: `cloud1-${i}`, region: 'eu-west-1', accessKeyId: SecretValue.fromEnv('BENCH_SECRET_2'), secretAccessKey: SecretValue.fromEnv('BENCH_SECRET_3') }),
      new sf.SyncCloud2KvDestination(stack, `cloud2-${i}`, { name: `cloud2-${i}`, keyVaultUri: `https://vault-${i}.example.net`, clientId: 'bench-client', clientSecret: SecretValue.fromEnv('BENCH_SECRET_4'), tenantId: 'bench-tenant' }),
      new sf.SyncCloud3SmDestination(stack, `cloud3-${i}`, { name: `cloud3-${i}`, credentials: SecretValue.fromEnv('BENCH_SECRET_5'), projectId: `project-${i}` }),
      new sf.SyncRepohostDestination(stack, `repohost-${i}`, { name: `repohost-${i}`, accessToken: SecretValue.fromEnv('BENCH_SECRET_6'), repositoryOwner: 'bench', repositoryName: `repo-${i}` }),
      new sf.SyncWebhostProjectDestination(stack, `webhost-${i}`, { name: `webhost-${i}`, accessToken: SecretValue.fromEnv('BENCH_SECRET_7'), projectId: `prj-${i}`, deploymentEnvironments: ['production'] }),
    );
  }
  for (let i = 0; i < mix.associations; i++) {
    new sf.SyncAssociation(stack, `association-${i}`, { destination: destinations[i % destinations.length], mount: 'kv', secretName: `app-${i}` });
  }
}

for (let i = 0; i < stackCount; i++) {
  const stack = new TerraformStack(app, stackCount === 1 ? stackName : `${stackName}-${i}`);
  if (process.env.BENCH_PLAIN === '1') addPlainResources(stack);
  else addBenchResources(stack, secretform());
}
app.synth();
