/**
 * One message per failure on a terminal (issue 33): apply over several stacks shows a stack that cannot plan in
 * its section of the preview; when stderr is the same terminal, the error is not printed a second time there,
 * one line says where it is. Piped, stderr carries every error in full, as before. A child process cannot be
 * given a terminal here, so the command runs in-process with fake terminal streams (as cli-approval does),
 * against a real dev server and a really synthesized project.
 */
import { EventEmitter } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runChangeCommand, type ChangeFlags, type ProcessHooks } from '../../src/cli/run/change-run';
import { endCommand } from '../../src/cli/run/command-failure';
import { synthesize } from '../../src/synthesize';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { fakeIo } from '../unit/cli-fake-io';
import { cliEnv, createTwoStackProject } from './cli-harness';

jest.setTimeout(120_000);

let server: DevServer;
let project: string;
let env: NodeJS.ProcessEnv;

const flags: ChangeFlags = { parallelism: '10', synth: false, stack: ['*'], autoApprove: true };
const hooks = (): ProcessHooks => ({ signals: new EventEmitter(), exit: jest.fn() });

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'cli-apply-terminal-root' });
  project = createTwoStackProject();
  env = cliEnv(server, { NO_COLOR: '1' });
  await synthesize({ cwd: project, env, stdout: process.stderr });
  // green's state file is damaged: green fails before it plans, blue plans and applies.
  mkdirSync(join(project, '.secretform'), { recursive: true });
  writeFileSync(join(project, '.secretform', 'green.state.json'), '{ not json');
});

afterAll(async () => {
  await server?.close();
});

/** Runs `apply --auto-approve --stack '*'` with stdout and stderr a terminal (`tty`) or pipes. */
async function applyBoth(tty: boolean) {
  const io = fakeIo({ tty, env, cwd: project });
  const exitCode = endCommand(io, await runChangeCommand('apply', flags, io, hooks()));
  return { exitCode, stdout: io.stdout.text, stderr: io.stderr.text };
}

/** The error the preview shows in green's section. */
function greenError(stdout: string): string {
  const section = /=== Stack green ===\n\nError: (.+)\n/.exec(stdout);
  expect(section).not.toBeNull();
  return section![1];
}

/** The error printed once, in green's section of the preview; stderr points at it and repeats nothing. */
function expectPrintedOnce(run: { stdout: string; stderr: string }): void {
  const message = greenError(run.stdout);
  expect((run.stdout + run.stderr).split(message)).toHaveLength(2);
  expect(run.stderr).toContain('Error: stack green did not plan: its error is in its section above\n');
  expect(run.stderr).not.toContain('Error: stack green: ');
}

test('on a terminal, blue applying: green\'s error is printed once, in its section; stderr points at it', async () => {
  const terminal = await applyBoth(true);
  expect(terminal.exitCode).toBe(1);
  expectPrintedOnce(terminal);
  // blue went on, and its result is there as always.
  expect(terminal.stdout).toContain('Apply complete! Resources: 3 added, 0 changed, 0 destroyed.');
});

test('on a terminal, blue with nothing to do: green\'s error is printed once too', async () => {
  const terminal = await applyBoth(true);
  expect(terminal.exitCode).toBe(1);
  expectPrintedOnce(terminal);
  expect(terminal.stdout).not.toContain('Apply complete!');
});

test('piped: stderr says the error in full, naming its stack, as well as the preview', async () => {
  const piped = await applyBoth(false);
  expect(piped.exitCode).toBe(1);
  const message = greenError(piped.stdout);
  expect(piped.stderr).toContain(`Error: stack green: ${message}\n`);
  expect(piped.stderr).not.toContain('did not plan');
});
