/**
 * A plan over several stacks lets go of each stack's loaded desired state once that stack is planned (the run
 * loaded and checked all of them before its first request; at 100 stacks they would all stay in memory to the
 * end otherwise). What is released is read from the file again by a later load.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { plan } from '../../src/engine';
import { loadDesiredSource } from '../../src/engine/setup/desired-source';
import { startHarness, unwrap, type Harness } from './engine-harness';
import { applyTwoStacks, type TwoStackOptions } from './two-stack-app';

let h: Harness;
let options: TwoStackOptions;

beforeAll(async () => {
  h = await startHarness({ SF_PLAN_RELEASE_PASSWORD: 'engine-plan-release-password-7c2e' }, { kvMount: false });
  options = await applyTwoStacks(h, 'SF_PLAN_RELEASE_PASSWORD', 'secretform-engine-plan-release-');
});

afterAll(async () => {
  await h.close();
  fs.rmSync(options.desired.outdir, { recursive: true, force: true });
});

test('after a plan of both stacks, neither stays loaded: a load reads the file again', async () => {
  // Loaded (and kept) by the applies of the same source: a load now answers from memory.
  const before = loadDesiredSource(options, 'blue');
  expect(loadDesiredSource(options, 'blue')).toBe(before);

  const outcomes = unwrap(await plan({ ...options, stacks: ['blue', 'green'] }));
  expect(outcomes.map((outcome) => [outcome.stack, outcome.status])).toEqual([['blue', 'done'], ['green', 'done']]);

  // The files are gone: a stack still held in memory would load without noticing.
  for (const stack of ['blue', 'green']) fs.rmSync(path.join(options.desired.outdir, 'stacks', stack, 'cdk.tf.json'));
  for (const stack of ['blue', 'green']) {
    const again = loadDesiredSource(options, stack);
    expect(again.ok).toBe(false);
    if (!again.ok) expect(again.error.message).toContain(path.join('stacks', stack, 'cdk.tf.json'));
  }
});
