/**
 * The approval prompt of apply and destroy on an interactive stdin. A child process cannot be given a terminal
 * here, so these run the command in-process with a fake terminal (isTTY streams), against a real dev server and
 * a really synthesized project.
 */
import { EventEmitter } from 'node:events';
import { runChangeCommand, type ChangeFlags, type ProcessHooks } from '../../src/cli/run/change-run';
import { APPROVAL_QUESTION } from '../../src/cli/run/approval';
import { endCommand } from '../../src/cli/run/command-failure';
import { synthesize } from '../../src/synthesize';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { fakeIo, type FakeIo } from '../unit/cli-fake-io';
import { cliEnv, createProject, createTwoStackProject, waitFor } from './cli-harness';

jest.setTimeout(60_000);

let server: DevServer;
let project: string;
let env: NodeJS.ProcessEnv;

const flags = (extra: Partial<ChangeFlags> = {}): ChangeFlags => ({ parallelism: '10', synth: false, ...extra });
const hooks = (): ProcessHooks => ({ signals: new EventEmitter(), exit: jest.fn() });
const writes = () => server.requestLog.filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST');

/**
 * Brings the project to `state` with a run that asks nothing (--auto-approve), and returns how many writes the
 * server had seen then: each test starts from the state it needs, whichever tests ran before it (`-t`).
 */
async function startFrom(state: 'nothing applied' | 'applied'): Promise<number> {
  const setup = fakeIo({ env, cwd: project });
  expect(await runChangeCommand(state === 'applied' ? 'apply' : 'destroy', flags({ autoApprove: true }), setup, hooks())).toBe(0);
  return writes().length;
}

async function answerWhenAsked(io: FakeIo, answer: string): Promise<void> {
  await waitFor(() => io.stdout.text.includes(APPROVAL_QUESTION), 'the approval question');
  io.stdin.write(`${answer}\n`);
}

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'cli-approval-root' });
  project = createProject();
  // A terminal, but no colour codes between the words the tests look for.
  env = cliEnv(server, { NO_COLOR: '1' });
  await synthesize({ cwd: project, env, stdout: process.stderr });
});

afterAll(async () => {
  await server?.close();
});

describe('approval on an interactive stdin', () => {
  test('apply shows the plan, asks, and any answer but "yes" cancels with exit 1 and no change', async () => {
    const before = await startFrom('nothing applied');
    const io = fakeIo({ tty: true, env, cwd: project });
    const run = runChangeCommand('apply', flags(), io, hooks());
    await answerWhenAsked(io, 'y');
    expect(endCommand(io, await run)).toBe(1);
    expect(io.stdout.text).toContain('Plan: 3 to add, 0 to change, 0 to destroy.');
    // stderr is a terminal too: the refresh progress line was drawn there, then cleared.
    expect(io.stderr.text).toMatch(/Refreshing \d+\/3/);
    expect(io.stderr.text.endsWith("\r\x1b[2KError: apply cancelled: only 'yes' approves; nothing was changed\n")).toBe(true);
    expect(writes().slice(before)).toEqual([]);
  });

  test('apply carries out the plan once the answer is "yes"', async () => {
    await startFrom('nothing applied');
    const io = fakeIo({ tty: true, env, cwd: project });
    const run = runChangeCommand('apply', flags(), io, hooks());
    await answerWhenAsked(io, 'yes');
    expect(await run).toBe(0);
    expect(io.stdout.text).toContain('Apply complete! Resources: 3 added, 0 changed, 0 destroyed.');
    expect((await call(server, 'GET', 'auth/userpass/users/alice')).status).toBe(200);
  });

  test('apply with nothing to do says so without asking', async () => {
    await startFrom('applied');
    const io = fakeIo({ tty: true, env, cwd: project });
    expect(await runChangeCommand('apply', flags(), io, hooks())).toBe(0);
    expect(io.stdout.text).toContain('No changes.');
    expect(io.stdout.text).toContain('Nothing to apply.');
    expect(io.stdout.text).not.toContain(APPROVAL_QUESTION);
  });

  test('destroy lists what it deletes, asks, and deletes on "yes"', async () => {
    await startFrom('applied');
    const io = fakeIo({ tty: true, env, cwd: project });
    const run = runChangeCommand('destroy', flags(), io, hooks());
    await answerWhenAsked(io, 'yes');
    expect(await run).toBe(0);
    expect(io.stdout.text).toContain('e2e/alice will be destroyed');
    expect(io.stdout.text).toContain('Plan: 0 to add, 0 to change, 3 to destroy.');
    expect(io.stdout.text).toContain('Destroy complete! Resources: 3 destroyed.');
    expect((await call(server, 'GET', 'auth/userpass/users/alice')).status).toBe(404);
  });
});

describe('approval over several stacks on an interactive stdin', () => {
  test('apply and destroy with nothing to do in any stack say so in one line without asking, as for one stack', async () => {
    const twoStacks = createTwoStackProject();
    await synthesize({ cwd: twoStacks, env, stdout: process.stderr });
    const bothStacks = flags({ stack: ['*'] });
    expect(await runChangeCommand('apply', { ...bothStacks, autoApprove: true }, fakeIo({ env, cwd: twoStacks }), hooks())).toBe(0);

    const applied = fakeIo({ tty: true, env, cwd: twoStacks });
    expect(await runChangeCommand('apply', bothStacks, applied, hooks())).toBe(0);
    expect(applied.stdout.text.endsWith('\n\nNothing to apply in 2 stacks.\n')).toBe(true);
    expect(applied.stdout.text).not.toContain(APPROVAL_QUESTION);

    expect(await runChangeCommand('destroy', { ...bothStacks, autoApprove: true }, fakeIo({ env, cwd: twoStacks }), hooks())).toBe(0);
    const destroyed = fakeIo({ tty: true, env, cwd: twoStacks });
    expect(await runChangeCommand('destroy', bothStacks, destroyed, hooks())).toBe(0);
    expect(destroyed.stdout.text.endsWith('\n\nNo resources in state for any of the 2 stacks to destroy. Nothing to do.\n')).toBe(true);
    expect(destroyed.stdout.text).not.toContain(APPROVAL_QUESTION);
  });
});
