/**
 * A desired state that did not come through the constructs' validation (a hand-edited or generated
 * `cdk.tf.json`) is checked against the resource model before any request: wrong kinds, out-of-range values,
 * a 10 MB string, an unknown field and a dependency cycle fail plan and apply with every problem at once, each
 * naming the address and the field under the file, and the dev server sees no request at all.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { apply, AuthMount, LdapSecretBackend, LdapStaticRole, plan, SecretValue, UserpassUser, type EngineOptions } from '../../src';
import { startHarness, type Harness } from './engine-harness';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(60_000);

let harness: Harness;
let outdir: string;
const USERS = Array.from({ length: 24 }, (_, index) => `user-${index}`);

beforeAll(async () => {
  harness = await startHarness({ SF_PASSWORD: 'desired-validation-password', SF_BINDPASS: 'desired-validation-bindpass' });
  outdir = tempDir('secretform-desired-validation-');
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'test');
  const userpass = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  for (const name of USERS) new UserpassUser(stack, name, { mount: userpass, username: name, password: SecretValue.fromEnv('SF_PASSWORD'), tokenTtl: '1h' });
  const ldap = new LdapSecretBackend(stack, 'ldap', { binddn: 'cn=admin,dc=engine,dc=test', bindpass: SecretValue.fromEnv('SF_BINDPASS') });
  new LdapStaticRole(stack, 'role', { backend: ldap, name: 'svc', username: 'svc-a', rotationPeriod: '24h' });
  app.synth();
});

afterAll(async () => {
  await harness?.close();
  rmSync(outdir, { recursive: true, force: true });
});

const configFile = () => join(outdir, 'stacks', 'test', 'cdk.tf.json');

/** Edits the `"//".secretform` object of each resource address given, in a fresh copy of the synthesized file. */
function edited(edits: Record<string, (object: any) => void>): string {
  const copy = tempDir('secretform-desired-edited-');
  const config = JSON.parse(readFileSync(configFile(), 'utf8'));
  const found = new Set<string>();
  for (const resources of Object.values<any>(config.resource)) {
    for (const block of Object.values<any>(resources)) {
      const object = block['//']?.secretform;
      if (object && edits[object.address]) {
        edits[object.address](object);
        found.add(object.address);
      }
    }
  }
  expect([...found].sort()).toEqual(Object.keys(edits).sort());
  writeFileSync(join(copy, 'manifest.json'), readFileSync(join(outdir, 'manifest.json')));
  const stackDir = join(copy, 'stacks', 'test');
  mkdirSync(stackDir, { recursive: true });
  writeFileSync(join(stackDir, 'cdk.tf.json'), JSON.stringify(config));
  return copy;
}

function options(dir: string): EngineOptions {
  return { stack: 'test', desired: { kind: 'synth-output', outdir: dir }, cwd: harness.dir, env: harness.env };
}

test('the synthesized stack as it is plans fine (the edits below are what fails)', async () => {
  const planned = await plan(options(outdir));
  expect(planned.ok).toBe(true);
});

test('wrong kinds, ranges, a 10 MB string and an unknown field fail plan and apply before any request, all at once', async () => {
  const huge = 'p'.repeat(10 * 1024 * 1024);
  const dir = edited({
    'test/role': (object) => (object.spec.rotation_period = { a: 1 }),
    'test/user-0': (object) => (object.spec.token_ttl = -5),
    'test/user-1': (object) => (object.spec.token_num_uses = 1e308),
    'test/user-2': (object) => (object.spec.token_policies = [huge]),
    'test/user-3': (object) => (object.spec.surprise = 1),
  });
  const file = join(dir, 'stacks', 'test', 'cdk.tf.json');
  harness.markLog();
  const runs = [() => plan(options(dir)), () => apply({ ...options(dir), confirm: () => Promise.resolve(true) })];
  for (const run of runs) {
    const result = await run();
    expect(result.ok).toBe(false);
    if (result.ok) continue;
    expect(result.error.code).toBe('desired_invalid');
    const message = result.error.message;
    expect(message).toContain(`invalid desired state of stack test (from ${file}), 5 problems; nothing was sent:`);
    expect(message).toContain('test/role: rotation_period: received {"a":1}; expected a duration');
    expect(message).toContain('test/user-0: token_ttl: received -5; expected a duration');
    expect(message).toContain('test/user-1: token_num_uses: received 1e+308; a whole number from');
    expect(message).toMatch(new RegExp(`test/user-2: token_policies: received \\["p{20,80}\\.\\.\\.; \\[0\\]: at most 65536 characters \\(received ${huge.length}\\)`));
    expect(message).toContain('test/user-3: surprise: not a field of userpass_user; fields: ');
    expect(message.length).toBeLessThan(3000);
  }
  expect(harness.logSince()).toEqual([]);
});

test('a dependency cycle fails plan, naming the cycle, before any request', async () => {
  const dir = edited({
    'test/user-4': (object) => (object.dependsOn = [...object.dependsOn, 'test/user-5']),
    'test/user-5': (object) => (object.dependsOn = [...object.dependsOn, 'test/user-4']),
  });
  harness.markLog();
  const planned = await plan(options(dir));
  expect(planned.ok).toBe(false);
  if (!planned.ok) expect(planned.error.message).toContain('dependency cycle: test/user-4 -> test/user-5 -> test/user-4');
  expect(harness.logSince()).toEqual([]);
});
