/**
 * Ctrl-C during a slow apply (the dev server answers every request after a delay): the first SIGINT stops the
 * run after the operations in flight, with state saved and exit 1; a second SIGINT exits at once. Over several
 * stacks, each stack stopped says so as one stack does, and the total counts it as interrupted; the advice of a
 * run of one stack of several, with targets, names them, so that pasted it covers what the run did.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { BOB_PASSWORD, cliEnv, createProject, createTwoStackProject, runCli, startCli, waitFor } from './cli-harness';

jest.setTimeout(120_000);

const USERS = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7', 'u8'];

let server: DevServer;

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'cli-interrupt-root', latencyMs: 150 });
});

afterAll(async () => {
  await server?.close();
});

async function usersOnServer(): Promise<string[]> {
  const listed = await call(server, 'LIST', 'auth/userpass/users');
  return listed.status === 200 ? [...listed.body.data.keys].sort() : [];
}

describe('SIGINT during apply', () => {
  test('the first SIGINT stops after in-flight operations, saves state and exits 1; a re-plan shows exactly the rest', async () => {
    const project = createProject();
    const env = cliEnv(server, { SF_E2E_USERS: USERS.join(',') });
    expect((await runCli(['plan'], project, env)).code).toBe(0); // synthesized once, so the apply starts at once

    const running = startCli(['apply', '--no-synth', '--auto-approve', '--parallelism', '1'], project, env);
    await waitFor(() => /e2e\/u\d: created/.test(running.stdout()), 'the first user to be created');
    running.child.kill('SIGINT');
    const { code, signal } = await running.exited;
    expect(signal).toBeNull();
    expect(code).toBe(1);
    expect(running.stderr()).toContain('Interrupt received (SIGINT): stopping after the operations in flight finish; state will be saved.');
    expect(running.stderr()).toContain('Error: apply was interrupted before it finished');

    const created = (await usersOnServer()).filter((name) => USERS.includes(name));
    expect(created.length).toBeGreaterThan(0);
    expect(created.length).toBeLessThan(USERS.length);
    const state = JSON.parse(readFileSync(join(project, '.secretform', 'e2e.state.json'), 'utf8'));
    const usersInState = Object.keys(state.resources).filter((address) => USERS.includes(address.replace('e2e/', ''))).map((a) => a.replace('e2e/', '')).sort();
    expect(usersInState).toEqual(created);

    const rest = await runCli(['plan', '--no-synth', '--format', 'json'], project, env);
    expect(rest.code).toBe(0);
    const toCreate = JSON.parse(rest.stdout)
      .resource_changes.filter((c: { actions: string[] }) => c.actions.join() === 'create')
      .map((c: { address: string }) => c.address.replace('e2e/', ''))
      .filter((name: string) => USERS.includes(name))
      .sort();
    expect(toCreate).toEqual(USERS.filter((name) => !created.includes(name)));
  });

  test('a second SIGINT exits at once with 130', async () => {
    const project = createProject();
    const env = cliEnv(server, { SF_E2E_USERS: USERS.map((name) => `${name}x`).join(',') });
    expect((await runCli(['plan'], project, env)).code).toBe(0);

    const running = startCli(['apply', '--no-synth', '--auto-approve', '--parallelism', '1'], project, env);
    await waitFor(() => running.stdout().includes(': created'), 'the first operation to finish');
    running.child.kill('SIGINT');
    await waitFor(() => running.stderr().includes('Interrupt received'), 'the first interrupt to be acknowledged');
    running.child.kill('SIGINT');
    const { code } = await running.exited;
    expect(code).toBe(130);
    expect(running.stderr()).toContain('Second interrupt: exiting now.');
  });
});

describe('SIGINT during apply over several stacks', () => {
  test('each stack stopped reports its interrupt as one stack does, with advice for the same stacks, and the total counts the stacks as interrupted, not failed', async () => {
    const project = createTwoStackProject();
    const env = cliEnv(server, { SF_E2E_USERS: USERS.join(',') });
    expect((await runCli(['plan'], project, env)).code).toBe(0);

    // blue and green do not wait for each other: both are writing when the interrupt comes.
    const running = startCli(['apply', '--no-synth', '--auto-approve', '--stack', '*', '--parallelism', '1'], project, env);
    await waitFor(() => /(blue|green)\/u\d: created/.test(running.stdout()), 'the first user to be created');
    running.child.kill('SIGINT');
    const { code, signal } = await running.exited;
    expect(signal).toBeNull();
    expect(code).toBe(1);
    expect(running.stderr().match(/^Error: apply was interrupted before it finished/gm)).toHaveLength(2);
    // The advice runs the same stacks again: pasted as it is, `apply` without --stack would be refused.
    expect(running.stderr().match(/Run `secretform plan --stack '\*'` to see what is left, then `secretform apply --stack '\*'` again\.$/gm)).toHaveLength(2);
    expect(running.stdout()).toMatch(/\n\nTotal over 2 stacks: Apply did not complete \(2 stacks interrupted\)\. Resources: \d+ added, 0 changed, 0 destroyed\.\nTotal time: \d+\.\d s\n$/);
    expect(`${running.stdout()}${running.stderr()}`).not.toContain(BOB_PASSWORD);
  });

  test('an apply of one stack with --target advises a plan and apply of that stack and those targets, which run pasted as they are', async () => {
    const project = createTwoStackProject();
    // Users of their own: the test above left its users in blue's mount on the same server.
    const users = USERS.map((name) => `${name}t`);
    const env = cliEnv(server, { SF_E2E_USERS: users.join(',') });
    expect((await runCli(['plan'], project, env)).code).toBe(0);

    const targets = users.slice(0, 4).map((name) => `blue/${name}`);
    const running = startCli(['apply', '--no-synth', '--auto-approve', '--stack', 'blue', ...targets.flatMap((target) => ['--target', target]), '--parallelism', '1'], project, env);
    await waitFor(() => /blue\/u\dt: created/.test(running.stdout()), 'the first user to be created');
    running.child.kill('SIGINT');
    expect((await running.exited).code).toBe(1);
    // Without --stack, the apply would be refused (two stacks, none named); without --target, it would apply everything.
    const flags = `--stack blue ${targets.map((target) => `--target ${target}`).join(' ')}`;
    expect(running.stderr()).toContain(`Run \`secretform plan ${flags}\` to see what is left, then \`secretform apply ${flags}\` again.\n`);

    const rest = await runCli([...`plan ${flags}`.split(' '), '--no-synth', '--format', 'json'], project, env);
    expect(rest.code).toBe(0);
    const toCreate = JSON.parse(rest.stdout).resource_changes.filter((c: { actions: string[] }) => c.actions.join() === 'create').map((c: { address: string }) => c.address);
    expect(toCreate.length).toBeGreaterThan(0);
    expect(toCreate.every((address: string) => targets.includes(address))).toBe(true);
    expect(`${running.stdout()}${running.stderr()}${rest.stdout}${rest.stderr}`).not.toContain(BOB_PASSWORD);
  });

  test('apply PLANFILE of one stack of several advises a plan and apply of that stack', async () => {
    const project = createTwoStackProject();
    const users = USERS.map((name) => `${name}p`);
    const env = cliEnv(server, { SF_E2E_USERS: users.join(',') });
    expect((await runCli(['plan', '--stack', 'green', '--out', 'green.plan.json'], project, env)).code).toBe(0);

    const running = startCli(['apply', 'green.plan.json', '--parallelism', '1'], project, env);
    await waitFor(() => /green\/u\dp: created/.test(running.stdout()), 'the first user to be created');
    running.child.kill('SIGINT');
    expect((await running.exited).code).toBe(1);
    // Without --stack green, the apply would be refused (two stacks, none named) and the plan would cover both.
    expect(running.stderr()).toContain('Run `secretform plan --stack green` to see what is left, then `secretform apply --stack green` again.\n');
    expect(`${running.stdout()}${running.stderr()}`).not.toContain(BOB_PASSWORD);
  });
});
