/**
 * The advice printed when policies miss their deadline names the default deadline: it is built from
 * DEFAULT_POLICY_TIMEOUT_MS, so a change of the default changes the advice with it.
 */
import { DEFAULT_POLICY_TIMEOUT_MS } from '../../../src/policy/loaded-policies';
import { TIMEOUT_ADVICE, timeoutAdvice } from '../../../src/policy/timeout-advice';

test('the advice names the default deadline of today', () => {
  expect(TIMEOUT_ADVICE).toBe('a slow pack can be given more time with --policy-timeout or SECRETFORM_POLICY_TIMEOUT (default 60s)');
});

test('the advice is the one made from DEFAULT_POLICY_TIMEOUT_MS', () => {
  expect(TIMEOUT_ADVICE).toBe(timeoutAdvice(DEFAULT_POLICY_TIMEOUT_MS));
});

test('the advice names whatever default it is given, in seconds or milliseconds', () => {
  expect(timeoutAdvice(90_000)).toContain('(default 90s)');
  expect(timeoutAdvice(90_500)).toContain('(default 90500ms)');
});
