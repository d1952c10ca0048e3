/**
 * What a plan over several stacks checks before its first request (engine/stacks/stack-preparation.ts): every
 * stack's state location and connection, taken with its number of objects from the synth-time digest record while
 * the record describes the stack's file, without loading its desired state; apply and destroy (`loadEveryStack`)
 * load and check every stack then. A ServiceConnection's token variable is required either way.
 */
import { App, TerraformStack } from 'cdktf';
import { join } from 'node:path';
import { AuthMount, SecretsMount, ServiceConnection } from '../../src';
import * as desired from '../../src/engine/setup/desired';
import { prepareStacks } from '../../src/engine/stacks/stack-preparation';
import { tempDir } from '../support/temp-dir';

const GREEN_ADDR = 'http://127.0.0.1:8300';

function synthesizedApp(): string {
  const outdir = tempDir('sf-ahead-');
  const app = new App({ outdir });
  for (const name of ['blue', 'green']) {
    const stack = new TerraformStack(app, name);
    if (name === 'green') new ServiceConnection(stack, 'conn', { address: GREEN_ADDR, tokenEnv: 'GREEN_TOKEN' });
    new AuthMount(stack, 'userpass', { path: `${name}-users`, type: 'userpass' });
    if (name === 'blue') new SecretsMount(stack, 'kv', { path: 'blue-apps', type: 'kv', options: { version: '2' } });
  }
  app.synth();
  return outdir;
}

describe('prepareStacks over a synth output with digest records', () => {
  const outdir = synthesizedApp();
  const source = { kind: 'synth-output' as const, outdir };
  const set = { stacks: ['blue', 'green'], several: true, dependencies: new Map([['blue', []], ['green', []]]), targetsOf: () => undefined };
  const options = (env: NodeJS.ProcessEnv) => ({ statePath: join(tempDir('sf-ahead-state-'), '{stack}.state.json'), env });
  const environment = { SERVICE_TOKEN: 'root', SERVICE_ADDR: 'http://127.0.0.1:8200' };
  let loads: jest.SpyInstance;
  beforeEach(() => {
    loads = jest.spyOn(desired, 'loadDesired');
  });
  afterEach(() => loads.mockRestore());

  test("a plan checks each stack's connection and counts its objects from the record, loading no stack", () => {
    // A fresh source object each time: loaded stacks are kept per source (desired-source.ts).
    const prepared = prepareStacks(options({ ...environment, GREEN_TOKEN: 'green' }), set, () => ({ ...source }), false, false);
    expect(prepared.ok).toBe(true);
    if (!prepared.ok) return;
    expect([...prepared.value.work!.entries()]).toEqual([
      ['blue', { server: 'http://127.0.0.1:8200', objects: 2 }],
      ['green', { server: GREEN_ADDR, objects: 1 }],
    ]);
    expect(loads).not.toHaveBeenCalled();
  });

  test('apply and destroy load and check every stack first, with the same counts', () => {
    const prepared = prepareStacks(options({ ...environment, GREEN_TOKEN: 'green' }), set, () => ({ ...source }), false, true);
    expect(prepared.ok).toBe(true);
    if (!prepared.ok) return;
    expect(prepared.value.work!.get('blue')).toEqual({ server: 'http://127.0.0.1:8200', objects: 2 });
    expect(prepared.value.work!.get('green')).toEqual({ server: GREEN_ADDR, objects: 1 });
    expect(loads.mock.calls.map((call) => call[1])).toEqual(['blue', 'green']);
  });

  test("a ServiceConnection's unset token variable stops a plan before any request, without the stack loaded", () => {
    const prepared = prepareStacks(options(environment), set, () => ({ ...source }), false, false);
    expect(prepared.ok).toBe(false);
    if (prepared.ok) return;
    expect(prepared.error.subject).toEqual({ stack: 'green' });
    expect(prepared.error.message).toMatch(/^GREEN_TOKEN is not set/);
    expect(loads).not.toHaveBeenCalled();
  });
});
