/**
 * The state commands and force-unlock over an app of two stacks (cli-harness's blue and green, applied once),
 * through the real binary: each works on one stack, as import, action and exec do: the stack ADDRESS starts
 * with, or the one `--stack`, by name. A `--stack` other than ADDRESS's stack, several `--stack` and a pattern
 * are refused, with the messages of import, action and exec, before any state is read or written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runForceUnlock } from '../../src/cli/commands/force-unlock';
import { endCommand, type CommandEnd } from '../../src/cli/run/command-failure';

import { runStateList, runStateMv, runStateRm, runStateShow } from '../../src/cli/commands/state';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { fakeIo } from '../unit/cli-fake-io';
import { BOB_PASSWORD, cliEnv, createTwoStackProject, runCli, transcript, TWO_STACKS, type CliResult } from './cli-harness';

jest.setTimeout(120_000);

const TOKEN = 'state-stacks-root-token-5a9c';

let server: DevServer;
let project: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: TOKEN });
  project = createTwoStackProject();
  env = cliEnv(server);
  const applied = await runCli(['apply', '--stack', '*', '--auto-approve'], project, env);
  if (applied.code !== 0) throw new Error(`apply failed: ${applied.stderr}`);
});

afterAll(async () => {
  await server?.close();
});

const cli = (args: string[]): Promise<CliResult> => runCli(args, project, env);
/** Each stack's state file as it stands: a refused command leaves both as they were. */
const states = (): string[] => TWO_STACKS.map((stack) => readFileSync(join(project, '.secretform', `${stack}.state.json`), 'utf8'));
const addresses = (stack: string): string[] => Object.keys(JSON.parse(readFileSync(join(project, '.secretform', `${stack}.state.json`), 'utf8')).resources).sort();

function expectRefused(result: CliResult, stderr: string): void {
  expect(result.stderr).toBe(stderr);
  expect(result.stdout).toBe('');
  expect(result.code).toBe(1);
}

test('without --stack, state show, mv and rm work on the stack ADDRESS starts with', async () => {
  const blue = states()[0];
  const shown = await cli(['state', 'show', 'green/kv']);
  expect(shown.stderr).toBe('');
  expect(shown.code).toBe(0);
  expect(JSON.parse(shown.stdout)).toMatchObject({ address: 'green/kv', type: 'secrets_mount', id: 'sys/mounts/green-apps' });

  const moved = await cli(['state', 'mv', 'green/kv', 'green/apps']);
  expect(moved.code).toBe(0);
  expect(moved.stdout).toContain('Moved green/kv to green/apps in state.');
  expect(addresses('green')).toEqual(['green/alice', 'green/apps', 'green/userpass']);
  expect((await cli(['state', 'mv', 'green/apps', 'green/kv'])).code).toBe(0);

  const removed = await cli(['state', 'rm', 'green/alice']);
  expect(removed.code).toBe(0);
  expect(addresses('green')).toEqual(['green/kv', 'green/userpass']);
  // Adopted again, so the other tests find both stacks as applied.
  expect((await cli(['import', 'green/alice', 'auth/green-users/users/alice', '--no-synth'])).code).toBe(0);
  expect(addresses('green')).toEqual(['green/alice', 'green/kv', 'green/userpass']);
  expect(states()[0]).toBe(blue);
});

test('a --stack other than ADDRESS\'s stack, a pattern included, is refused naming both and the fix, before the state is read', async () => {
  const before = states();
  const mismatch = (given: string, address: string, own: string) =>
    `Error: --stack ${given} does not hold ${address}: an address starts with its stack's name, so it is in stack ${own}. ` +
    `Drop --stack (the address names its stack), or give --stack ${own}\n`;
  expectRefused(await cli(['state', 'show', 'blue/kv', '--stack', 'green']), mismatch('green', 'blue/kv', 'blue'));
  expectRefused(await cli(['state', 'rm', 'blue/alice', '--stack', 'green']), mismatch('green', 'blue/alice', 'blue'));
  expectRefused(await cli(['state', 'mv', 'green/kv', 'green/apps', '--stack', 'blue']), mismatch('blue', 'green/kv', 'green'));
  expectRefused(await cli(['state', 'show', 'blue/kv', '--stack', 'b*']), mismatch('b*', 'blue/kv', 'blue'));
  expect(states()).toEqual(before);
});

test('a --stack pattern is refused by the commands without an ADDRESS, with the stacks it matches', async () => {
  const before = states();
  const usage = '(patterns are for plan, apply, destroy, show and graph)';
  expectRefused(
    await cli(['state', 'list', '--stack', 'b*']),
    `Error: --stack 'b*' is a pattern, matching blue; state list works on one stack and takes its name: --stack blue ${usage}\n`,
  );
  expectRefused(
    await cli(['force-unlock', '--stack', '*', '--force']),
    `Error: --stack '*' is a pattern, matching blue, green; force-unlock works on one stack and takes its name: --stack blue or --stack green ${usage}\n`,
  );
  // A pattern that matches no stack is still a pattern, not the name of a stack without state.
  expectRefused(
    await cli(['state', 'pull', '--stack', 'red-*']),
    `Error: --stack 'red-*' is a pattern; state pull works on one stack and takes its name ${usage}\n`,
  );
  expect(states()).toEqual(before);
});

test('several --stack reaching the commands themselves are refused, not replaced by ADDRESS\'s stack', async () => {
  const before = states();
  const stack = ['green', 'blue'];
  const refusal = (command: string) => `Error: --stack was given 2 times ("green", "blue"); ${command} works on one stack: give --stack once, with that stack's name\n`;
  const runs: [string, (io: ReturnType<typeof fakeIo>) => Promise<CommandEnd>][] = [
    ['state show', (io) => runStateShow('blue/kv', { stack }, io)],
    ['state rm', (io) => runStateRm('blue/alice', { stack }, io)],
    ['state mv', (io) => runStateMv('blue/kv', 'blue/apps', { stack }, io)],
    ['state list', (io) => runStateList({ stack }, io)],
    ['force-unlock', (io) => runForceUnlock({ stack, force: true }, io)],
  ];
  for (const [command, run] of runs) {
    const io = fakeIo({ cwd: project, env });
    expect(endCommand(io, await run(io))).toBe(1);
    expect(io.stderr.text).toBe(refusal(command));
    expect(io.stdout.text).toBe('');
  }
  expect(states()).toEqual(before);
});

// A guard: commander refused a second --stack, and the commands without ADDRESS refused two stacks without one,
// before this change too; they must go on doing so, and one --stack by name must go on working.
test('as before: a second --stack on the command line, or none over two stacks without ADDRESS, is refused; one name works', async () => {
  const twice = await cli(['state', 'show', 'blue/kv', '--stack', 'blue', '--stack', 'green']);
  expect(twice.code).toBe(1);
  expect(twice.stderr).toContain('--stack was given twice ("blue" and "green"); this command works on one stack: give --stack once');
  for (const args of [['state', 'list'], ['force-unlock', '--force']]) {
    const none = await cli(args);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(`Error: ${join(project, 'cdktf.out')} holds 2 stacks (blue, green); choose one with --stack\n`);
  }
  const listed = await cli(['state', 'list', '--stack', 'green']);
  expect(listed.stdout).toBe('green/alice\ngreen/kv\ngreen/userpass\n');
  expect((await cli(['force-unlock', '--stack', 'blue', '--force'])).stdout).toBe('The state is not locked. Nothing to do.\n');
  expect((await cli(['state', 'show', 'blue/kv', '--stack', 'blue'])).code).toBe(0);
});

test('no secret value reaches any output or state file', () => {
  for (const text of [...transcript, ...states()]) {
    expect(text).not.toContain(BOB_PASSWORD);
    expect(text).not.toContain(TOKEN);
  }
});
