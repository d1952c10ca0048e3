/**
 * `runOperation` through the engine API over a synth output of two stacks (blue and green, each a userpass mount
 * and a user), against the dev server: the operation runs on the stack its address starts with, and a `stack`
 * given that does not hold the address is refused up front, as a value naming both, before anything is read,
 * locked or sent.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOperation } from '../../src';
import { startHarness, unwrap, type Harness } from './engine-harness';
import { applyTwoStacks, type TwoStackOptions } from './two-stack-app';

const PASSWORD = 'engine-operation-stack-password-7c3e';

let h: Harness;
let options: TwoStackOptions;

beforeAll(async () => {
  h = await startHarness({ SF_OPERATION_PASSWORD: PASSWORD }, { kvMount: false });
  options = await applyTwoStacks(h, 'SF_OPERATION_PASSWORD', 'secretform-engine-operation-stack-');
});

afterAll(async () => {
  await h.close();
  fs.rmSync(options.desired.outdir, { recursive: true, force: true });
});

const stateFiles = (): string[] => fs.readdirSync(path.join(h.dir, '.secretform')).sort();

test('a stack given that does not hold the address is refused up front, naming both, with nothing read or sent', async () => {
  const files = stateFiles();
  h.markLog();
  for (const [stack, operation] of [['green', 'login'], ['qa', 'login'], ['green', 'rotate-root']] as const) {
    const answered = await runOperation({ ...options, stack }, { address: 'blue/ci', operation });
    expect(answered).toEqual({
      ok: false,
      error: expect.objectContaining({
        code: 'address_unknown',
        message: `stack ${stack} does not hold blue/ci: an address starts with its stack's name, so it is in stack blue. ` +
          'Leave the stack out (the address names its stack), or give stack blue; nothing was read or sent',
      }),
    });
  }
  expect(h.logSince()).toEqual([]);
  // No lock or state file of another stack was made on the way (rotate-root locks its stack's state first).
  expect(stateFiles()).toEqual(files);
});

// A guard: without a stack, or with the address's own, the operation ran on that stack before this change too.
test('without a stack, or with the address\'s own, the operation runs on the stack the address starts with', async () => {
  for (const stack of [undefined, 'green']) {
    h.markLog();
    const answer = unwrap(await runOperation({ ...options, stack }, { address: 'green/ci', operation: 'login' }));
    expect(answer).toMatchObject({ address: 'green/ci', type: 'userpass_user', operation: 'login', returnsCredentials: true });
    expect(h.logSince().map((entry) => `${entry.method} ${entry.path.replace(/^\/+/, '')}`)).toEqual(['POST auth/green-users/login/green-ci']);
  }
});
