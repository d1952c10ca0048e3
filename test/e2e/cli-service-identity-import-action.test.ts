/**
 * `import` and `action` check the service identity as plan and apply do (issue 34 item 13 continued): `prod`
 * applied on server A, then its ServiceConnection pointed at server B. An import (of an object removed from
 * state) and an action are refused before any request to B, naming both services; on A the import records the
 * service in a state that recorded none (as an older version wrote it). The real binary against two dev servers.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DevServer } from '../../src/devserver/server';
import { closeTwoServices, identityEnv, identityProject, startTwoServices, writeProdApp, type TwoServices } from '../support/service-identity-app';
import { runCli } from './cli-harness';

jest.setTimeout(240_000);

const TOKEN = 'identity-import-root-token-8a2c';
let services: TwoServices | undefined;
let a: DevServer;
let b: DevServer;

beforeAll(async () => {
  services = await startTwoServices(TOKEN);
  ({ a, b } = services);
});

afterAll(() => closeTwoServices(services));

/** Stack `prod` on `address` (its ServiceConnection): an auth mount and a user in it. */
function writeApp(project: string, address: string): void {
  writeProdApp(project, address, [
    "const people = new sf.AuthMount(stack, 'people', { path: 'people', type: 'userpass' });",
    "new sf.UserpassUser(stack, 'ann', { mount: people, username: 'ann', password: sf.SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD') });",
  ]);
}

test('import and action against another service than the state records: refused before any request, naming both', async () => {
  const project = identityProject('secretform-identity-import-e2e-');
  const env = identityEnv(TOKEN, { SECRETFORM_STATE: undefined });
  const stateFile = join(project, '.secretform', 'prod.state.json');
  const state = () => JSON.parse(readFileSync(stateFile, 'utf8')) as { service?: string; resources: Record<string, unknown> };

  writeApp(project, a.url);
  const applied = await runCli(['apply', '--auto-approve'], project, env);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  expect(state().service).toBe(a.url);
  expect((await runCli(['state', 'rm', 'prod/ann'], project, env)).code).toBe(0);

  writeApp(project, b.url);
  expect((await runCli(['synth'], project, env)).code).toBe(0);
  const mismatch = `was applied to the service at ${a.url}, but this run's connection (prod/service) names ${b.url}, so nothing was changed`;
  for (const args of [['import', 'prod/ann', 'auth/people/users/ann', '--no-synth'], ['action', 'creds', 'prod/people', '--no-synth']]) {
    const before = b.requestLog.length;
    const refused = await runCli(args, project, env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(mismatch);
    expect(b.requestLog.slice(before)).toEqual([]);
  }
  expect(Object.keys(state().resources)).toEqual(['prod/people']);

  // Back on A, with a state that records no service (an older version's): the import records A.
  writeApp(project, a.url);
  const { service: _service, ...older } = JSON.parse(readFileSync(stateFile, 'utf8')) as Record<string, unknown>;
  writeFileSync(stateFile, `${JSON.stringify(older, null, 2)}\n`);
  const imported = await runCli(['import', 'prod/ann', 'auth/people/users/ann'], project, env);
  expect(imported.stderr).toBe('');
  expect(imported.code).toBe(0);
  expect(state().service).toBe(a.url);
  expect(Object.keys(state().resources).sort()).toEqual(['prod/ann', 'prod/people']);
});
