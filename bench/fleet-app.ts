// The fleet bench's cdktf app (`npm run bench -- --fleet`): FLEET_STACKS independent stacks of FLEET_OBJECTS objects
// each, stack i on the server FLEET_SERVERS names in position i mod their number (a ServiceConnection per stack):
// per stack a userpass mount and its users, each with the pre-hashed password FLEET_PASSWORD_HASH (the dev server
// stores it as given, so an apply of the fleet measures the client and the round trips, not bcrypt).
// FLEET_PLAIN=1: as many plain cdktf resources per stack instead (and no secretform construct), run as `node
// fleet-app.js` by the fleet bench to show what cdktf itself costs for the fleet's synth, apart from our constructs.
import { join } from 'node:path';

const root = process.env.BENCH_ROOT ?? join(__dirname, '..');
/* eslint-disable @typescript-eslint/no-require-imports */
const { App, TerraformStack } = require(join(root, 'node_modules', 'cdktf')) as typeof import('cdktf');
const sf = require(join(root, 'dist')) as typeof import('../src');
/* eslint-enable @typescript-eslint/no-require-imports */

const stacks = Number(process.env.FLEET_STACKS ?? '4');
const objects = Number(process.env.FLEET_OBJECTS ?? '100');
const servers = (process.env.FLEET_SERVERS ?? 'http://127.0.0.1:8200').split(',');
const plain = process.env.FLEET_PLAIN === '1';
const app = new App();
for (let s = 0; s < stacks; s++) {
  const name = `fleet-${String(s).padStart(3, '0')}`;
  const stack = new TerraformStack(app, name);
  if (plain) {
    // Generic TerraformResources, as bench/app.ts's BENCH_PLAIN (cdktf's DataResource would run `terraform version`).
    const { TerraformResource } = require(join(root, 'node_modules', 'cdktf')) as typeof import('cdktf'); // eslint-disable-line @typescript-eslint/no-require-imports
    for (let i = 0; i < objects; i++) new TerraformResource(stack, `plain-${i}`, { terraformResourceType: 'terraform_data' }).addOverride('input', { name: `user-${i}`, ttl: 3600 });
    continue;
  }
  new sf.ServiceConnection(stack, 'service', { address: servers[s % servers.length] });
  const userpass = new sf.AuthMount(stack, 'userpass', { path: `${name}-users`, type: 'userpass' });
  for (let i = 1; i < objects; i++) {
    new sf.UserpassUser(stack, `user-${i}`, { mount: userpass, username: `user-${i}`, passwordHash: sf.SecretValue.fromEnv('FLEET_PASSWORD_HASH'), tokenPolicies: ['default'], tokenTtl: '1h' });
  }
}
app.synth();
