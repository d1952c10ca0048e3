/**
 * One message per failure on a terminal: a plan over several stacks whose report goes to the same terminal as
 * stderr shows each failed stack's error in its section once, and stderr says where to look; piped, stderr
 * carries every error in full.
 */
import { App, TerraformStack } from 'cdktf';
import { AuthMount } from '../../src';
import { runPlanOfStacks } from '../../src/cli/run/plan-run';
import { fakeIo } from './cli-fake-io';
import { tempDir } from '../support/temp-dir';

/** Two stacks, neither of which can plan: their service's address has nothing listening. */
function twoStacks(): string {
  const outdir = tempDir('plan-run-terminal-');
  const app = new App({ outdir });
  for (const name of ['blue', 'green']) new AuthMount(new TerraformStack(app, name), 'users', { path: `${name}-users`, type: 'userpass' });
  app.synth();
  return outdir;
}

const UNREACHABLE = 'could not reach the service';

test.each([true, false])('a plan of two failing stacks, on a terminal: %s', async (tty) => {
  const outdir = twoStacks();
  const io = fakeIo({ tty, env: { SERVICE_ADDR: 'http://127.0.0.1:1', SERVICE_TOKEN: 'unit-token' } });
  const options = { desired: { kind: 'synth-output' as const, outdir }, cwd: io.cwd, env: io.env, stacks: ['blue', 'green'] };
  const outcome = await runPlanOfStacks({ options, format: 'text', planned: () => undefined }, io);
  expect(outcome).toBe(1);
  expect(io.stdout.text.split(UNREACHABLE)).toHaveLength(3);
  if (tty) {
    expect(io.stderr.text).toBe('Error: stacks blue, green did not plan: their errors are in their sections above\n');
  } else {
    expect(io.stderr.text.split(UNREACHABLE)).toHaveLength(3);
    expect(io.stderr.text).toContain('Error: stack blue: ');
  }
});
