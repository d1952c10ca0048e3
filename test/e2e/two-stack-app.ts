/**
 * The app of the engine tests of commands on one address over several stacks: a synth output of two stacks,
 * blue and green, each a userpass mount (`<stack>-users`) and a user `<stack>/ci` (username `<stack>-ci`), both
 * applied against the harness's dev server.
 */
import { App, TerraformStack } from 'cdktf';
import { apply, AuthMount, SecretValue, UserpassUser, type EngineOptions } from '../../src';
import { unwrap, type Harness } from './engine-harness';
import { tempDir } from '../support/temp-dir';

export type TwoStackOptions = EngineOptions & { desired: { kind: 'synth-output'; outdir: string } };

/** Synthesizes the two stacks into a new temporary outdir (the caller removes it) and applies both. */
export async function applyTwoStacks(h: Harness, passwordEnv: string, prefix: string): Promise<TwoStackOptions> {
  const outdir = tempDir(prefix);
  const app = new App({ outdir });
  for (const name of ['blue', 'green']) {
    const stack = new TerraformStack(app, name);
    const mount = new AuthMount(stack, 'userpass', { path: `${name}-users`, type: 'userpass' });
    new UserpassUser(stack, 'ci', { mount, username: `${name}-ci`, password: SecretValue.fromEnv(passwordEnv), tokenPolicies: ['default'] });
  }
  app.synth();
  const options: TwoStackOptions = { desired: { kind: 'synth-output', outdir }, cwd: h.dir, env: h.env };
  for (const stack of ['blue', 'green']) expect(unwrap(await apply({ ...options, stack })).succeeded).toBe(true);
  return options;
}
