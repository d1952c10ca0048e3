/**
 * `stateShow`, `stateRm` and `stateMv` through the engine API over a synth output of two stacks (blue and green,
 * each a userpass mount and a user): a `stack` given that does not hold the address (its first segment) is
 * refused up front, as runOperation refuses it, before the state is read or locked; without a stack, the command
 * works on the stack the address starts with.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stateMv, stateRm, stateShow } from '../../src';
import { startHarness, unwrap, type Harness } from './engine-harness';
import { applyTwoStacks, type TwoStackOptions } from './two-stack-app';

let h: Harness;
let options: TwoStackOptions;

beforeAll(async () => {
  h = await startHarness({ SF_STATE_STACK_PASSWORD: 'engine-state-stack-password-4b1d' }, { kvMount: false });
  options = await applyTwoStacks(h, 'SF_STATE_STACK_PASSWORD', 'secretform-engine-state-stack-');
});

afterAll(async () => {
  await h.close();
  fs.rmSync(options.desired.outdir, { recursive: true, force: true });
});

/** Every file of the state directory with its content: a lock taken or a state written shows here. */
function stateDirectory(): Record<string, string> {
  const dir = path.join(h.dir, '.secretform');
  const files = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => fs.statSync(path.join(dir, name)).isFile());
  return Object.fromEntries(files.sort().map((name) => [name, fs.readFileSync(path.join(dir, name), 'utf8')]));
}

const refusal = (stack: string) => ({
  ok: false,
  error: expect.objectContaining({
    code: 'address_unknown',
    message: `stack ${stack} does not hold blue/ci: an address starts with its stack's name, so it is in stack blue. ` +
      'Leave the stack out (the address names its stack), or give stack blue; nothing was read or sent',
  }),
});

test('a stack given that does not hold the address is refused up front by show, rm and mv, naming both', async () => {
  const before = stateDirectory();
  for (const stack of ['green', 'qa']) {
    expect(await stateShow({ ...options, stack }, 'blue/ci')).toEqual(refusal(stack));
    expect(await stateRm({ ...options, stack }, 'blue/ci')).toEqual(refusal(stack));
    expect(await stateMv({ ...options, stack }, 'blue/ci', 'blue/ci2')).toEqual(refusal(stack));
  }
  // No state of another stack was made, locked or changed on the way.
  expect(stateDirectory()).toEqual(before);
});

test('without a stack, or with the address\'s own, show reads the stack the address starts with', async () => {
  for (const stack of [undefined, 'green']) {
    expect(unwrap(await stateShow({ ...options, stack }, 'green/ci'))).toMatchObject({ type: 'userpass_user' });
  }
});

test('without a stack, mv and rm edit the state of the stack the address starts with', async () => {
  expect(unwrap(await stateMv(options, 'blue/ci', 'blue/ci2'))).toMatchObject({ from: 'blue/ci', to: 'blue/ci2' });
  expect(unwrap(await stateShow(options, 'blue/ci2'))).toMatchObject({ type: 'userpass_user' });
  unwrap(await stateRm(options, 'blue/ci2'));
  expect(await stateShow(options, 'blue/ci2')).toMatchObject({ ok: false, error: expect.objectContaining({ code: 'address_unknown' }) });
  // green's state is untouched.
  expect(unwrap(await stateShow(options, 'green/ci'))).toMatchObject({ type: 'userpass_user' });
});
