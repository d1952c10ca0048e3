import * as cdktf from 'cdktf';
import * as cdktn from 'cdktn';
import { AuthMount, LdapStaticRole, SecretValue, UserpassUser } from '../../src';
import { desiredFromStack, matchesSubset, SecretformTemplate, secretformMatchers, validateStack } from '../../src/testing';
import { tempDir } from '../support/temp-dir';

expect.extend(secretformMatchers);

/** Testing.app() of either framework, with an output directory removed when the file ends (its own would stay). */
function testingApp(framework: typeof cdktf) {
  return framework.Testing.app({ outdir: tempDir('cdktf.outdir.') });
}

// Both frameworks have the same API; their classes only differ in private members (cast for the type checker).
function userStack(either: typeof cdktf | typeof cdktn, ttl = '1h') {
  const framework = either as typeof cdktf;
  const app = testingApp(framework);
  const stack = new framework.TerraformStack(app, 'prod');
  const mount = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  new UserpassUser(stack, 'ci', { mount, username: 'ci-bot', password: SecretValue.fromEnv('CI_PASSWORD'), tokenTtl: ttl, tokenPolicies: ['deployer'] });
  return stack;
}

describe.each([['cdktf', cdktf], ['cdktn', cdktn]] as const)('secretform/testing under %s', (_name, either) => {
  const framework = either as typeof cdktf;
  test('sees each construct\'s type, id and spec, which Testing.synth drops', () => {
    const stack = userStack(framework);
    expect(framework.Testing.synth(stack)).not.toContain('token_policies');
    const template = SecretformTemplate.fromStack(stack);
    template.resourceCountIs('userpass_user', 1);
    template.hasResource('userpass_user', { username: 'ci-bot', token_policies: ['deployer'] });
    expect(template.resource('prod/ci')).toMatchObject({ type: 'userpass_user', id: 'auth/userpass/users/ci-bot', dependsOn: ['prod/userpass'] });
    expect(template.resource('prod/ci').secrets.password.reference).toEqual({ env: 'CI_PASSWORD' });
    expect(() => template.hasResource('userpass_user', { username: 'someone-else' })).toThrow(/no userpass_user resource with spec \{"username":"someone-else"\}; the stack's userpass_user resources:\n {2}prod\/ci: /);
    expect(() => template.resourceCountIs('auth_mount', 2)).toThrow('expected 2 auth_mount resources, found 1');
    expect(() => template.resource('prod/nope')).toThrow('no secretform resource at prod/nope; the stack has prod/userpass, prod/ci');
  });

  test('matchers pass and fail on the spec, and run the validations app.synth() runs', () => {
    expect(userStack(framework)).toHaveSecretformResource('userpass_user', { token_ttl: '1h' });
    expect(userStack(framework)).not.toHaveSecretformResource('userpass_user', { token_ttl: '2h' });
    expect(userStack(framework)).toBeValidSecretformStack();
    const invalid = userStack(framework, '1 hour');
    expect(validateStack(invalid)).toEqual([expect.stringMatching(/^prod\/ci: tokenTtl: received "1 hour"; /)]);
    expect(invalid).not.toBeValidSecretformStack();
    expect(() => expect(invalid).toHaveSecretformResource('userpass_user')).toThrow(/stack prod is invalid \(1 problem\):\n {2}prod\/ci: tokenTtl/);
  });

  test('validations that need the whole stack fail too (Testing.synth would skip them)', () => {
    const app = testingApp(framework);
    const stack = new framework.TerraformStack(app, 'prod');
    new LdapStaticRole(stack, 'a', { backend: 'ldap', name: 'svc', username: 'svc', rotationPeriod: '1h' });
    new LdapStaticRole(stack, 'b', { backend: 'ldap', name: 'svc', username: 'svc', rotationPeriod: '1h' });
    expect(() => framework.Testing.synth(stack)).not.toThrow();
    expect(() => SecretformTemplate.fromStack(stack)).toThrow(/prod\/b: .*prod\/a already manages ldap\/static-role\/svc/);
  });
});

test('desiredFromStack is re-exported and matchesSubset compares nested values', () => {
  expect(desiredFromStack(userStack(cdktf)).resources.map((resource) => resource.address)).toEqual(['prod/userpass', 'prod/ci']);
  expect(matchesSubset({ a: 1, b: { c: [1, 2], d: 'x' } }, { b: { c: [1, 2] } })).toBe(true);
  expect(matchesSubset({ a: 1, b: { c: [1, 2] } }, { b: { c: [1] } })).toBe(false);
  expect(matchesSubset({ a: 1 }, { a: '1' })).toBe(false);
});
