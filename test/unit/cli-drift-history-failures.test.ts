/**
 * drift ack, unack and history return their failures (a CommandFailure), never throw them: a throw past the
 * command reached the binary, which printed it as `secretform: <message>` instead of `Error: <message>`.
 */
import { runDriftAck, runDriftHistory, runDriftUnack } from '../../src/cli/run/drift-history-run';
import { CommandFailure, usageFailure } from '../../src/cli/run/command-failure';
import { fakeIo } from './cli-fake-io';

test('drift history --state with nothing in it is a usage failure', async () => {
  await expect(runDriftHistory(undefined, { format: 'text', state: ' ' }, fakeIo())).resolves.toEqual(usageFailure('--state must not be empty'));
  await expect(runDriftHistory('e2e/kv', { format: 'text', state: ' ' }, fakeIo())).resolves.toEqual(usageFailure('--state must not be empty'));
});

test('drift ack and unack: an empty --state or --stack, or no address, is a usage failure', async () => {
  await expect(runDriftAck(['e2e/kv'], { reason: 'why', state: ' ' }, fakeIo())).resolves.toEqual(usageFailure('--state must not be empty'));
  await expect(runDriftUnack(['e2e/kv'], { stack: ' ' }, fakeIo())).resolves.toEqual(usageFailure('--stack must not be empty'));
  await expect(runDriftUnack(['nothing'], {}, fakeIo())).resolves.toEqual(usageFailure('nothing is not an address: an address is STACK/NAME, as `secretform drift` lists it'));
});

test('drift history without a synth output: the engine error, with its code', async () => {
  const failure = await runDriftHistory(undefined, { format: 'text', output: 'nowhere' }, fakeIo());
  expect(failure).toBeInstanceOf(CommandFailure);
  expect((failure as CommandFailure).code).not.toBe('usage');
});
