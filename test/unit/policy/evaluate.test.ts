/**
 * Evaluating packs over a plan: one result per policy and resource (no-ops included, resourceTypes honoured),
 * waivers reported with their reason (looked up as own properties), a throwing, misbehaving or never-settling check
 * named as an error, an abort reported as an interruption, an unknown waiver warned, everything said scrubbed.
 */
import type { Plan, PlannedChange } from '../../../src/engine/plan/plan';
import { evaluatePolicies } from '../../../src/engine/policy/plan-evaluation';
import { definePolicy, PolicyDefinitionError, type PolicyResource } from '../../../src/policy/policy';
import type { PolicyDesiredInput } from '../../../src/engine/policy/resource-view';
import { SecretScrubber } from '../../../src/client/secret-scrubber';

const change = (address: string, action: PlannedChange['action']): PlannedChange => ({
  address, type: 'userpass_user', id: `auth/userpass/users/${address}`, action, reasons: [], before: action === 'create' ? null : { username: address },
  after: { username: address }, sensitive: [], replacePaths: [], fieldChanges: [], secrets: [],
});
const plan: Plan = { stack: 'prod', refreshOnly: false, changes: [change('prod/a', 'create'), change('prod/b', 'no-op')], drift: [], warnings: [] };
const desired = (waivers?: Record<string, string>): PolicyDesiredInput[] => [
  { address: 'prod/a', type: 'userpass_user', spec: { username: 'a' }, secretFields: ['password'], policyWaivers: waivers },
  { address: 'prod/b', type: 'userpass_user', spec: { username: 'b' }, secretFields: [] },
];
const loaded = (...policies: ReturnType<typeof definePolicy>[]) => ({ packs: ['test-pack'], policies: policies.map((policy) => ({ policy, pack: 'test-pack' })) });

const noA = definePolicy({
  id: 'no-a', description: 'no user a', enforcement: 'mandatory', resourceTypes: ['userpass_user'],
  check: (resource: PolicyResource) => (resource.address === 'prod/a' ? [{ message: 'a is not allowed', field: 'username' }] : []),
});

test('every resource of the plan, no-ops included, gets one result per policy', async () => {
  const run = await evaluatePolicies(plan, desired(), loaded(noA));
  if (!run.ok) throw run.error;
  expect(run.evaluation.results).toEqual([
    { policy: 'no-a', enforcement: 'mandatory', address: 'prod/a', status: 'failed', message: 'username: a is not allowed', fields: ['username'] },
    { policy: 'no-a', enforcement: 'mandatory', address: 'prod/b', status: 'passed', message: '', fields: [] },
  ]);
  expect(run.evaluation.rules).toEqual([{ id: 'no-a', description: 'no user a', enforcement: 'mandatory', pack: 'test-pack' }]);
});

test('a waiver turns a failure into waived, with its reason', async () => {
  const run = await evaluatePolicies(plan, desired({ 'no-a': 'a is the break-glass account' }), loaded(noA));
  if (!run.ok) throw run.error;
  expect(run.evaluation.results[0]).toMatchObject({ status: 'waived', waiverReason: 'a is the break-glass account' });
  expect(run.warnings).toEqual([]);
});

test('a waiver naming no known policy is warned about', async () => {
  const run = await evaluatePolicies(plan, desired({ 'no-aa': 'typo' }), loaded(noA));
  if (!run.ok) throw run.error;
  expect(run.warnings.join('\n')).toContain('prod/a: policyWaivers names "no-aa"');
});

test('resourceTypes limits what a policy sees', async () => {
  const other = definePolicy({ id: 'mounts-only', description: 'x', enforcement: 'advisory', resourceTypes: ['secrets_mount'], check: () => [{ message: 'never' }] });
  const run = await evaluatePolicies(plan, desired(), loaded(other));
  if (!run.ok) throw run.error;
  expect(run.evaluation.results).toEqual([]);
});

test('a check that throws is an error naming the policy and the address', async () => {
  const throwing = definePolicy({ id: 'broken', description: 'x', enforcement: 'advisory', check: () => { throw new Error('boom'); } });
  const run = await evaluatePolicies(plan, desired(), loaded(throwing));
  expect(run.ok).toBe(false);
  if (!run.ok) expect(run.error.message).toMatch(/^policy "broken" on prod\/a: check threw: boom/);
});

test('a check that returns something other than violations is an error', async () => {
  const wrong = definePolicy({ id: 'wrong', description: 'x', enforcement: 'advisory', check: () => 'bad' as never });
  const run = await evaluatePolicies(plan, desired(), loaded(wrong));
  expect(run.ok).toBe(false);
  if (!run.ok) expect(run.error.message).toContain('policy "wrong" on prod/a: check returned "bad"');
});

test('definePolicy refuses a malformed definition, naming the property', () => {
  expect(() => definePolicy({ id: 'x y', description: '', enforcement: 'strict' as never, check: undefined as never }))
    .toThrow(PolicyDefinitionError);
  expect(() => definePolicy({ id: 'ok', description: 'd', enforcement: 'strict' as never, check: () => [] })).toThrow(/enforcement: received "strict"/);
});

test('a policy named like an Object.prototype property is waived only by a waiver naming it', async () => {
  const failing = (id: string) => definePolicy({ id, description: 'x', enforcement: 'mandatory', check: () => [{ message: `${id} fails` }] });
  const run = await evaluatePolicies(plan, desired({ 'no-a': 'a is the break-glass account' }), loaded(failing('constructor'), failing('toString')));
  if (!run.ok) throw run.error;
  const forA = run.evaluation.results.filter((result) => result.address === 'prod/a');
  expect(forA.map((result) => [result.policy, result.status])).toEqual([['constructor', 'failed'], ['toString', 'failed']]);
  expect(forA.every((result) => result.waiverReason === undefined)).toBe(true);
});

test('a policy made in code whose promise never settles fails at the deadline, naming the policy and the address', async () => {
  const hanging = definePolicy({ id: 'hangs', description: 'x', enforcement: 'mandatory', check: () => new Promise<never>(() => undefined) });
  const started = Date.now();
  const run = await evaluatePolicies(plan, desired(), { ...loaded(hanging), timeoutMs: 200 });
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(run.ok).toBe(false);
  if (!run.ok) {
    expect(run.error.message).toMatch(/^policy "hangs" on prod\/a: no answer within 200ms/);
    expect(run.error.interrupted).toBe(false);
  }
});

test('without a timeout given, the deadline is 60 s: still waiting just before, failed closed at it', async () => {
  jest.useFakeTimers();
  try {
    const hanging = definePolicy({ id: 'hangs', description: 'x', enforcement: 'mandatory', check: () => new Promise<never>(() => undefined) });
    let settled: Awaited<ReturnType<typeof evaluatePolicies>> | undefined;
    void evaluatePolicies(plan, desired(), loaded(hanging)).then((run) => (settled = run));
    await jest.advanceTimersByTimeAsync(59_999);
    expect(settled).toBeUndefined();
    await jest.advanceTimersByTimeAsync(1);
    expect(settled?.ok).toBe(false);
    if (settled && !settled.ok) expect(settled.error.message).toMatch(/^policy "hangs" on prod\/a: no answer within 60s /);
  } finally {
    jest.useRealTimers();
  }
});

test('an abort stops a check that is waiting, as an interruption', async () => {
  const hanging = definePolicy({ id: 'hangs', description: 'x', enforcement: 'mandatory', check: () => new Promise<never>(() => undefined) });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const run = await evaluatePolicies(plan, desired(), loaded(hanging), { signal: controller.signal });
  expect(run.ok).toBe(false);
  if (!run.ok) expect(run.error.interrupted).toBe(true);
});

test('everything a policy says goes through the run scrubbing: messages, fields, descriptions, errors', async () => {
  const secret = 'run-secret-value-91b2c7';
  const scrubber = new SecretScrubber([secret]);
  const settings = { scrub: (text: string) => scrubber.scrubServerText(text) };
  const talking = definePolicy({ id: 'talks', description: `knows ${secret}`, enforcement: 'advisory', check: () => [{ message: `saw ${secret}`, field: secret }] });
  const run = await evaluatePolicies(plan, desired(), loaded(talking), settings);
  if (!run.ok) throw run.error;
  expect(JSON.stringify(run.evaluation)).not.toContain(secret);
  expect(run.evaluation.results[0].message).toContain('saw [redacted]');
  const throwing = definePolicy({ id: 'throws', description: 'x', enforcement: 'advisory', check: () => { throw new Error(`cannot: ${secret}`); } });
  const failed = await evaluatePolicies(plan, desired(), loaded(throwing), settings);
  expect(failed.ok).toBe(false);
  if (!failed.ok) expect(failed.error.message).not.toContain(secret);
});

test('a check whose promise rejects is an error naming the policy and the address', async () => {
  const rejecting = definePolicy({ id: 'rejects', description: 'x', enforcement: 'advisory', check: () => Promise.reject(new Error('late boom')) });
  const run = await evaluatePolicies(plan, desired(), loaded(rejecting));
  expect(run.ok).toBe(false);
  if (!run.ok) expect(run.error.message).toMatch(/^policy "rejects" on prod\/a: check threw: late boom/);
});
