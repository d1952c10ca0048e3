/**
 * zod is loaded only for props the plain check does not vouch for (props-check.ts, prop-declaration.ts): an app
 * whose constructs all have valid props synthesizes without loading it (issue 35: about 125 ms of CPU, 95
 * modules), and a construct with a wrong prop still gets zod's message. Checked in a real process (tsx), since
 * jest's own module registry would hide what node loads.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** Synthesizes a stack of every usual construct, then one with a wrong prop; reports whether zod was loaded after each. */
const PROBE = `
const { App, TerraformStack } = require(${JSON.stringify(require.resolve('cdktf'))});
const sf = require(${JSON.stringify(path.join(ROOT, 'src'))});
const zodLoaded = () => Object.keys(require.cache).some((file) => /[\\\\/]node_modules[\\\\/]zod[\\\\/]/.test(file));
const outdir = process.argv[2];
const valid = new App({ outdir: outdir + '/valid' });
const stack = new TerraformStack(valid, 'valid');
const users = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
const ldap = new sf.LdapSecretBackend(stack, 'ldap', { binddn: 'cn=admin,dc=example,dc=org', bindpass: sf.SecretValue.fromEnv('BINDPASS'), path: 'ldap-main' });
new sf.UserpassUser(stack, 'alice', { mount: users, username: 'alice', password: sf.SecretValue.fromEnv('PW'), tokenPolicies: ['default'], tokenTtl: '1h', protect: true, ignoreChanges: ['tokenTtl'] });
new sf.LdapStaticRole(stack, 'svc', { backend: ldap, name: 'svc', username: 'svc', rotationPeriod: '24h' });
new sf.LdapDynamicRole(stack, 'dyn', { backend: 'ldap-main', name: 'dyn', creationLdif: 'dn: cn={{.Username}},dc=example,dc=org\\nobjectClass: person\\n', deletionLdif: 'dn: cn={{.Username}},dc=example,dc=org\\nchangetype: delete\\n' });
const kv = new sf.SecretsMount(stack, 'kv', { path: 'kv', type: 'kv', options: { version: '2' } });
const web = new sf.SyncWebhostProjectDestination(stack, 'web', { name: 'web', accessToken: sf.SecretValue.fromEnv('TOKEN'), projectId: 'p', deploymentEnvironments: ['production'] });
new sf.SyncAssociation(stack, 'assoc', { destination: web, mount: kv, secretName: 'app' });
valid.synth();
const afterValid = zodLoaded();
const wrong = new App({ outdir: outdir + '/wrong' });
new sf.UserpassUser(new TerraformStack(wrong, 'wrong'), 'bob', { username: 'bob', password: sf.SecretValue.fromEnv('PW'), tokenType: 'forever' });
let message = '';
try { wrong.synth(); } catch (error) { message = String(error.message); }
process.stdout.write(JSON.stringify({ afterValid, afterWrong: zodLoaded(), message }));
`;

let probe: { afterValid: boolean; afterWrong: boolean; message: string };

beforeAll(() => {
  const dir = tempDir('secretform-zod-load-');
  try {
    fs.writeFileSync(path.join(dir, 'probe.cjs'), PROBE);
    const run = spawnSync(process.execPath, [TSX, path.join(dir, 'probe.cjs'), dir], { cwd: ROOT, encoding: 'utf8', timeout: 50_000 });
    if (run.status !== 0) throw new Error(`the probe exited ${run.status}: ${run.stderr}`);
    probe = JSON.parse(run.stdout) as typeof probe;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an app whose props are all valid synthesizes without loading zod', () => {
  expect(probe.afterValid).toBe(false);
});

test('a wrong prop loads zod and gets its message', () => {
  expect(probe.message).toContain('wrong/bob: tokenType: received "forever"; allowed values:');
  expect(probe.afterWrong).toBe(true);
});
