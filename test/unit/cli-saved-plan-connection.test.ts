/**
 * Which service a saved plan's stack may name (issue 34 item 1): the file's connection must equal the run's own,
 * the environment's here (a project directory without synth output), in every setting that decides where the
 * token goes and how; only a trailing slash of the address is not a difference.
 */
import { savedPlanConnectionMismatch } from '../../src/engine/saved-plan/saved-plan-connection';
import { objectOfConnection } from '../../src/engine/setup/desired';
import { fakeIo } from './cli-fake-io';
import { tempDir } from '../support/temp-dir';

const ADDRESS = 'https://secrets.example.com:8200';
const cwd = tempDir('secretform-plan-connection-unit-');
const io = (env: NodeJS.ProcessEnv = { SERVICE_ADDR: ADDRESS, SERVICE_TOKEN: 'tok-unit-secret' }) => fakeIo({ env, cwd });
const connection = (changes: Record<string, unknown> = {}) => objectOfConnection({ construct: 'ops/service', address: ADDRESS, tokenEnv: 'SERVICE_TOKEN', skipVerify: false, ...changes });

test('a plan without a connection goes to the environment: accepted', () => {
  expect(savedPlanConnectionMismatch({ stack: 'ops' }, io())).toBeUndefined();
});

test("a connection equal to the environment's is accepted, a trailing slash aside", () => {
  expect(savedPlanConnectionMismatch({ stack: 'ops', connection: connection() }, io())).toBeUndefined();
  expect(savedPlanConnectionMismatch({ stack: 'ops', connection: connection({ address: `${ADDRESS}/` }) }, io())).toBeUndefined();
});

test('another address, token variable or TLS setting is refused, naming both and never the token', () => {
  const changes: Record<string, unknown>[] = [
    { address: 'https://attacker.example.com' },
    { tokenEnv: 'CI_PW' },
    { skipVerify: true },
    { caCertFile: 'evil-ca.pem' },
  ];
  for (const change of changes) {
    const problem = savedPlanConnectionMismatch({ stack: 'ops', connection: connection(change) }, io());
    expect(problem).toMatch(/^the saved plan names the service .* for stack ops, but the environment \(SERVICE_ADDR, SERVICE_TOKEN; no synth output in .*\) names https:\/\/secrets\.example\.com:8200 with the token from SERVICE_TOKEN, so nothing was sent/);
    expect(problem).not.toContain('tok-unit-secret');
  }
});

test('a connection when the environment names no address is refused', () => {
  expect(savedPlanConnectionMismatch({ stack: 'ops', connection: connection() }, io({}))).toContain('names (no address) with the token from SERVICE_TOKEN');
});

test('a connection the file cannot hold is refused as such', () => {
  expect(savedPlanConnectionMismatch({ stack: 'ops', connection: { address: ADDRESS } }, io())).toMatch(/saved plan/);
});
