/**
 * The advice printed when policies miss their deadline names the default deadline: it is read from
 * DEFAULT_POLICY_TIMEOUT_MS, so a change of the default changes the advice with it.
 */
import { TIMEOUT_ADVICE } from '../../../src/policy/timeout-advice';

test('the advice names the default deadline of today', () => {
  expect(TIMEOUT_ADVICE).toBe('a slow pack can be given more time with --policy-timeout or SECRETFORM_POLICY_TIMEOUT (default 60s)');
});

// The one module replaced is the constant whose change is under test; the advice is built by the real module.
test('the advice follows DEFAULT_POLICY_TIMEOUT_MS when the default changes', () => {
  jest.isolateModules(() => {
    jest.doMock('../../../src/policy/loaded-policies', () => ({
      ...jest.requireActual<object>('../../../src/policy/loaded-policies'),
      DEFAULT_POLICY_TIMEOUT_MS: 90_500,
    }));
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded again, inside the isolated registry
    const advice = (require('../../../src/policy/timeout-advice') as typeof import('../../../src/policy/timeout-advice')).TIMEOUT_ADVICE;
    expect(advice).toContain('(default 90500ms)');
  });
});
