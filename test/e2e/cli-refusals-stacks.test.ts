/**
 * A refusal known before the first write refuses the whole run over several stacks, before any write anywhere:
 * a protected object that one stack's destroy (or apply) would delete stops the other stacks too, as a failed
 * mandatory policy already did, and so does a state applied to another service than its stack's connection now
 * names. Two independent stacks on one dev server (and a second server for prod's connection), through the real
 * binary.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { cliEnv, ROOT, runCli } from './cli-harness';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(120_000);

const APP = `
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
const app = new App();
for (const name of ['prod', 'staging']) {
  const stack = new TerraformStack(app, name);
  const protect = name === 'staging' && process.env.SF_E2E_PROTECT === 'yes';
  new sf.SecretsMount(stack, 'kv', { path: name + '-apps', type: 'kv', options: { version: '2' }, protect });
  new sf.AuthMount(stack, 'userpass', { path: name + '-users', type: 'userpass' });
  // prod pointed at another service through its connection; staging given one more mount.
  if (name === 'prod' && process.env.SF_E2E_PROD_ADDR) new sf.ServiceConnection(stack, 'service', { address: process.env.SF_E2E_PROD_ADDR, tokenEnv: 'SERVICE_TOKEN' });
  if (name === 'staging' && process.env.SF_E2E_MORE === 'yes') new sf.SecretsMount(stack, 'more', { path: 'staging-more', type: 'kv', options: { version: '2' } });
}
app.synth();
`;

let server: DevServer;
let project: string;

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'refusals-root' });
  project = tempDir('secretform-refusals-');
  writeFileSync(join(project, 'cdktf.json'), JSON.stringify({ app: 'node main.js' }));
  writeFileSync(join(project, 'main.js'), APP);
});

afterAll(async () => {
  await server.close();
});

const env = (extra: Record<string, string> = {}) => cliEnv(server, { SECRETFORM_SYNTH_ENV: 'SF_E2E_PROTECT,SF_E2E_PROD_ADDR,SF_E2E_MORE', SF_E2E_PROTECT: 'yes', ...extra });
const mounted = async (path: string, table = 'mounts'): Promise<boolean> => {
  const answer = await fetch(`${server.url}/v1/sys/${table}/${path}`, { headers: { 'X-Service-Token': 'refusals-root' } });
  return answer.status === 200;
};

test('destroy over every stack with a protected object in one: exit 1 naming it, no stack destroyed', async () => {
  const applied = await runCli(['apply', '--stack', '*', '--auto-approve'], project, env());
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  expect(await mounted('prod-apps')).toBe(true);

  const before = server.requestLog.length;
  const destroyed = await runCli(['destroy', '--stack', '*', '--auto-approve'], project, env());
  expect(destroyed.code).toBe(1);
  expect(destroyed.stderr).toContain('staging/kv');
  expect(destroyed.stderr).toContain('protect');
  // prod has no protected object, and is left as it was: the refusal was known before any write.
  expect(await mounted('prod-apps')).toBe(true);
  expect(await mounted('prod-users', 'auth')).toBe(true);
  const writes = server.requestLog.slice(before).filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST');
  expect(writes).toEqual([]);
});

test("apply over every stack with one stack's state applied to another service: exit 1 naming both, no stack written", async () => {
  const other = await startDevServer({ port: 0, rootToken: 'refusals-root' });
  try {
    const before = server.requestLog.length;
    const refused = await runCli(['apply', '--stack', '*', '--auto-approve'], project, env({ SF_E2E_PROD_ADDR: other.url, SF_E2E_MORE: 'yes' }));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`was applied to the service at ${server.url}, but this run's connection (prod/service) names ${other.url}, so nothing was changed`);
    // staging's own change (a new mount on its own, right service) waits for no one, and is not made either.
    expect(await mounted('staging-more')).toBe(false);
    const writes = server.requestLog.slice(before).filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST');
    expect(writes).toEqual([]);
    expect(other.requestLog.filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST')).toEqual([]);
  } finally {
    await other.close();
  }
});
