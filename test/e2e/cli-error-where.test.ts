/** Errors name where the problem is: an unknown resource type recorded in state names the address and the state. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { cliEnv, createProject, runCli } from './cli-harness';

jest.setTimeout(60_000);

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0, rootToken: 'error-where-root' });
});
afterAll(async () => {
  await dev?.close();
});

test('an unknown resource type recorded in state: plan and destroy name the address and the state file, before any write', async () => {
  const project = createProject();
  const env = cliEnv(dev);
  expect((await runCli(['apply', '--auto-approve'], project, env)).code).toBe(0);
  const statePath = join(project, '.secretform', 'e2e.state.json');
  const state = JSON.parse(readFileSync(statePath, 'utf8')) as { resources: Record<string, { type: string }> };
  state.resources['e2e/alice'].type = 'userpass_user_v9';
  writeFileSync(statePath, JSON.stringify(state, null, 2));
  for (const command of [['plan'], ['destroy', '--auto-approve']]) {
    const before = dev.requestCount;
    const logged = dev.requestLog.length;
    const result = await runCli([...command, '--no-synth'], project, env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('e2e/alice: unknown resource type "userpass_user_v9"');
    expect(result.stderr).toContain(`state ${statePath} records an object of a type this secretform does not know`);
    expect(result.stderr).toContain('secretform state rm e2e/alice');
    // A plan reads the objects in code while it reads its state (src/engine/plan/read-ahead.ts): reads only.
    // Destroy reads nothing before its state is locked and read.
    if (command[0] === 'plan') expect(dev.requestLog.slice(logged).filter((entry) => entry.method !== 'GET')).toEqual([]);
    else expect(dev.requestCount - before).toBe(0);
  }
});
