/**
 * A run reads and checks a synth output once: the CLI's connection check and the run itself prepare the same
 * stack, and at 10,000 resources the second read and validation cost about 0.3 s of a plan.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { AuthMount } from '../../src';
import { loadDesiredSource, releaseDesiredSource } from '../../src/engine/setup/desired-source';
import type { EngineOptions } from '../../src/engine/setup/engine-options';
import { tempDir } from '../support/temp-dir';

let outdir: string;

beforeEach(() => {
  outdir = tempDir('secretform-desired-once-');
  const app = new App({ outdir });
  new AuthMount(new TerraformStack(app, 'once'), 'userpass', { path: 'userpass', type: 'userpass' });
  app.synth();
});

afterEach(() => rmSync(outdir, { recursive: true, force: true }));

test('the same synth-output source is read and checked once per stack, a new source reads the files again', () => {
  const source: EngineOptions['desired'] = { kind: 'synth-output', outdir };
  const first = loadDesiredSource({ desired: source }, 'once');
  expect(first.ok).toBe(true);
  // The file is gone: only a second read would notice.
  const file = join(outdir, 'stacks', 'once', 'cdk.tf.json');
  rmSync(file);
  expect(loadDesiredSource({ desired: source }, 'once')).toBe(first);
  const fresh = loadDesiredSource({ desired: { kind: 'synth-output', outdir } }, 'once');
  expect(fresh.ok).toBe(false);
  if (!fresh.ok) expect(fresh.error.message).toContain('cdk.tf.json');
});

test('a released stack is read and checked again; the other stacks of the source stay loaded', () => {
  const source: EngineOptions['desired'] = { kind: 'synth-output', outdir };
  const first = loadDesiredSource({ desired: source }, 'once');
  expect(first.ok).toBe(true);
  releaseDesiredSource({ desired: source }, 'once');
  const again = loadDesiredSource({ desired: source }, 'once');
  expect(again.ok).toBe(true);
  expect(again).not.toBe(first);
  // Released again, the file is gone: the next load reads it, and says so.
  releaseDesiredSource({ desired: source }, 'once');
  rmSync(join(outdir, 'stacks', 'once', 'cdk.tf.json'));
  const gone = loadDesiredSource({ desired: source }, 'once');
  expect(gone.ok).toBe(false);
  if (!gone.ok) expect(gone.error.message).toContain('cdk.tf.json');
});

test('an in-memory desired state is checked again on every call (the caller may have changed it)', () => {
  const source: EngineOptions['desired'] = { kind: 'synth-output', outdir };
  const loaded = loadDesiredSource({ desired: source }, 'once');
  if (!loaded.ok) throw new Error(loaded.error.message);
  const resources = [...loaded.value.resources];
  const inMemory: EngineOptions['desired'] = { kind: 'loaded', desired: { ...loaded.value, resources } };
  expect(loadDesiredSource({ desired: inMemory }, 'once').ok).toBe(true);
  resources.push({ ...resources[0] });
  const again = loadDesiredSource({ desired: inMemory }, 'once');
  expect(again.ok).toBe(false);
  if (!again.ok) expect(again.error.message).toContain('the address appears twice');
});

test("a run over several stacks reads the output's manifest once, not once per stack", () => {
  const many = tempDir('secretform-desired-once-many-');
  try {
    const app = new App({ outdir: many });
    for (const name of ['a', 'b', 'c']) new AuthMount(new TerraformStack(app, name), 'userpass', { path: `${name}-users`, type: 'userpass' });
    app.synth();
    const source: EngineOptions['desired'] = { kind: 'synth-output', outdir: many };
    expect(loadDesiredSource({ desired: source }, 'a').ok).toBe(true);
    // The manifest is gone: only a second read of it would notice.
    rmSync(join(many, 'manifest.json'));
    for (const stack of ['b', 'c']) expect(loadDesiredSource({ desired: source }, stack).ok).toBe(true);
    const fresh = loadDesiredSource({ desired: { kind: 'synth-output', outdir: many } }, 'b');
    expect(fresh.ok).toBe(false);
    if (!fresh.ok) expect(fresh.error.message).toContain('manifest.json');
  } finally {
    rmSync(many, { recursive: true, force: true });
  }
});
