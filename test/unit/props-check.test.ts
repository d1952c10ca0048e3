/**
 * The plain props check (src/constructs/props-check.ts) stands in for zod only when zod would accept: for every
 * resource type's props schema, over generated props (valid values of every field kind, values of the wrong
 * kind, edge cases zod treats specially), an object the check accepts is one zod accepts. And it does accept
 * the props constructs are usually given, else it would save nothing.
 */
import { App, TerraformStack } from 'cdktf';
import fc from 'fast-check';
import { z } from 'zod';
import { AuthMount, LdapSecretBackend, SecretValue } from '../../src';
import { boolProp, customProp, optionalProp, stringListProp, unknownProp, zodOnlyProp } from '../../src/constructs/prop-declaration';
import { certainlyAccepted } from '../../src/constructs/props-check';
import { fieldSchema, propsSchema } from '../../src/constructs/props-schema';
import { constructOrPathProp } from '../../src/constructs/references';
import { resourceOptionDeclarations } from '../../src/constructs/resource-options';
import { mountPathProp } from '../../src/constructs/validation';
import { RESOURCE_TYPES } from '../../src/resources';
import type { FieldSpec, ResourceType } from '../../src/resources/types';
import { ldapDynamicRole } from '../../src/resources/ldap-dynamic-role';
import { ldapStaticRole } from '../../src/resources/ldap-static-role';
import { userpassUser } from '../../src/resources/userpass-user';

const SEED = 20261129;

const app = new App();
const stack = new TerraformStack(app, 'check');
const mount = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
const backend = new LdapSecretBackend(stack, 'ldap', { binddn: 'cn=admin,dc=example,dc=org', bindpass: SecretValue.fromEnv('BINDPASS') });

/** Props the constructs declare with zod themselves, as the constructs declare them. */
const EXTRA = {
  mount: optionalProp(constructOrPathProp(AuthMount, 'an AuthMount')),
  backend: constructOrPathProp(LdapSecretBackend, 'an LdapSecretBackend'),
  customTags: optionalProp(unknownProp),
};

const LDIF = 'dn: cn={{.Username}},ou=users,dc=example,dc=org\nobjectClass: person\ncn: {{.Username}}\nsn: x\n';
const texts = [
  '', 'a', 'svc-1', 'Team_A', 'a/b', '/lead', 'x.y', 'dn: cn=a', '{{.Username}}', '{{.Broken', LDIF, 'default', '1h', '24h', '-5s', ' ', 'ÄÖ', 'a\u0000b',
  'https://vault-1.example.net', 'ldap://ldap.example.org', 'cn=admin,dc=example,dc=org', '10.0.0.0/8', '11111111-2222-3333-4444-555555555555', 'eu-west-1',
  '/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/rg-1', 'Reader', 'kv', 'userpass', '12345', 'v{{.RoleName}}-{{random 8}}', 'owner@example.org',
];

/** Values of any kind, the wrong ones included. */
const anyValueList: unknown[] = [
  undefined, null, true, false, 0, 1, -1, 1.5, 3600, 2 ** 60, Number.NaN, Number.POSITIVE_INFINITY, ...texts, [], ['a'], [1], [undefined],
  {}, { a: 'b' }, { a: 1 }, Object.create(null) as unknown, new Date(0), SecretValue.fromEnv('X'), mount, backend, () => 1,
];
const anyValue = fc.constantFrom<unknown>(...anyValueList);

/** Candidate values of a field's kind, valid ones and wrong ones. */
function candidates(field: FieldSpec): unknown[] {
  if (field.sensitive) return [SecretValue.fromEnv('SECRET'), SecretValue.fromFile('/run/secret'), 'plain'];
  const strings = [...(field.allowed ?? []), 'not-allowed', ...texts];
  switch (field.kind) {
    case 'string':
    case 'template':
    case 'ldif':
      return strings;
    case 'bool':
      return [true, false, 'true'];
    case 'int':
      return [0, 1, 5, 300, 100_000, -1, 0.5, 2 ** 53, -0];
    case 'duration':
      return ['1h', '30m', '0', '10s', '2d', '48h', 'x', '1h30m', 60, 86_400, 0, -1, 1.5];
    case 'stringList':
      return [[], ...strings.map((text) => [text]), [strings[0], strings[0]], ['a', 'A'], ['a', 'b'], ['a', undefined], new Array<string>(2)];
    case 'stringMap':
      return field.members ? membersCandidates(field.members) : [{}, { a: 'b' }, { a: 1 }, { constructor: 'x' }, Object.create(null) as unknown, new Date(0)];
    case 'objectList': {
      const elements = field.members ? membersCandidates(field.members) : [{ a: 'b' }, { a: 1 }, new Date(0)];
      return [[], ...elements.map((element) => [element]), elements.slice(0, 2)];
    }
  }
}

/** Objects of the members: each valid combination the first candidates give, and wrong ones. */
function membersCandidates(members: readonly FieldSpec[]): unknown[] {
  const valid = Object.fromEntries(members.flatMap((member) => {
    const value = validValues(member)[0];
    return value === undefined ? [] : [[member.prop, value]];
  }));
  return [valid, { ...valid, unknownMember: 1 }, ...members.map((member) => ({ ...valid, [member.prop]: 'not-allowed' })), {}];
}

/** The candidates zod accepts for the field (its own schema from props-schema.ts). */
function validValues(field: FieldSpec): unknown[] {
  const schema = fieldSchema(field, z);
  return candidates(field).filter((value) => value !== undefined && schema.safeParse(value).success);
}

/**
 * Props for a type: a valid value for every field that has one (optional ones sometimes absent), then zero to
 * two props set to a candidate of their kind or to anything, maybe an extra prop set, maybe an unknown one.
 */
function propsOf(resourceType: ResourceType, extra: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
  const fields = resourceType.fields.filter((field) => !field.computed && !field.setByConstruct && !(field.prop in extra));
  const base: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of fields) {
    const valid = validValues(field);
    if (valid.length > 0) base[field.prop] = field.required ? fc.constantFrom(...valid) : fc.option(fc.constantFrom(...valid), { nil: undefined });
  }
  for (const prop of Object.keys(extra)) base[prop] = fc.constantFrom<unknown>('userpass', 'ldap', mount, backend);
  const props = [...fields.map((field) => field.prop), ...Object.keys(extra), 'protect', 'ignoreChanges', 'policyWaivers', 'unknownProp'];
  const replacement = (prop: string): fc.Arbitrary<unknown> => {
    const field = fields.find((candidate) => candidate.prop === prop);
    return field ? fc.oneof(fc.constantFrom(...candidates(field)), anyValue) : anyValue;
  };
  const changes = fc.array(fc.constantFrom(...props).chain((prop) => replacement(prop).map((value) => [prop, value] as const)), { maxLength: 2 });
  return fc.tuple(fc.record(base), changes).map(([valid, changed]) => {
    const result: Record<string, unknown> = { ...valid };
    for (const [prop, value] of changed) result[prop] = value;
    return result;
  });
}

describe('the plain props check accepts only what zod accepts', () => {
  for (const resourceType of RESOURCE_TYPES) {
    test(resourceType.type, () => {
      const extra = resourceType.fields.some((field) => field.prop === 'mount') ? {} : EXTRA;
      const schema = propsSchema(resourceType, extra);
      const counts = { accepted: 0, parsed: 0 };
      fc.assert(
        fc.property(propsOf(resourceType, extra), (props) => {
          const accepted = certainlyAccepted(schema, props);
          const parsed = schema.zod().safeParse(props).success;
          counts.accepted += accepted ? 1 : 0;
          counts.parsed += parsed ? 1 : 0;
          if (accepted) expect(parsed).toBe(true);
        }),
        { numRuns: 400, seed: SEED },
      );
      // Not a vacuous property: many of the props it is given are valid, and the check says so.
      expect(counts.accepted).toBeGreaterThan(40);
    });
  }
});

describe('what it accepts', () => {
  test('the props constructs are usually given, with and without the options', () => {
    const userSchema = propsSchema(userpassUser, { mount: EXTRA.mount });
    const user = { mount, username: 'user-1', password: SecretValue.fromEnv('P'), tokenPolicies: ['default', 'team-1'], tokenTtl: '1h' };
    expect(certainlyAccepted(userSchema, user)).toBe(true);
    expect(certainlyAccepted(userSchema, { ...user, mount: 'userpass', protect: true, ignoreChanges: ['tokenTtl'] })).toBe(true);
    const roleSchema = propsSchema(ldapStaticRole, { backend: EXTRA.backend });
    expect(certainlyAccepted(roleSchema, { backend, name: 'static-1', username: 'account-1', rotationPeriod: '24h' })).toBe(true);
  });

  test('not props zod refuses, nor what it leaves to zod', () => {
    const userSchema = propsSchema(userpassUser, { mount: EXTRA.mount });
    const user = { mount, username: 'user-1', password: SecretValue.fromEnv('P') };
    for (const wrong of [{ ...user, password: 'plain' }, { ...user, username: '' }, { ...user, tokenTtl: 'soon' }, { ...user, unknown: 1 }, { ...user, mount: backend }, null, []]) {
      expect(certainlyAccepted(userSchema, wrong)).toBe(false);
      expect(userSchema.zod().safeParse(wrong).success).toBe(false);
    }
    // A policy waiver's id and reason have checks the plain check does not repeat: zod reads them.
    expect(certainlyAccepted(userSchema, { ...user, policyWaivers: { 'userpass-token-ttl': 'a reason' } })).toBe(false);
    expect(userSchema.zod().safeParse({ ...user, policyWaivers: { 'userpass-token-ttl': 'a reason' } }).success).toBe(true);
  });

  test('a text it parses is accepted again without parsing only when it is the one it accepted last', () => {
    // The LDIF and template checks remember the last text they accepted (props-check.ts): a refused text stays
    // refused however often it comes, before and after an accepted one.
    const roleSchema = propsSchema(ldapDynamicRole, { backend: EXTRA.backend });
    const role = (creationLdif: string) => ({ backend, name: 'dynamic-1', creationLdif, deletionLdif: LDIF });
    const broken = 'dn: cn={{.Username}},dc=example,dc=org\nobjectClass person\n';
    for (const [text, accepted] of [[LDIF, true], [LDIF, true], [broken, false], [broken, false], [LDIF, true], [broken, false]] as const) {
      expect({ text, accepted: certainlyAccepted(roleSchema, role(text)) }).toEqual({ text, accepted });
      expect(roleSchema.zod().safeParse(role(text)).success).toBe(accepted);
    }
  });

  test('a prop declared by hand accepts only what its zod schema accepts, and the usual values', () => {
    const declarations = {
      ...EXTRA, ...resourceOptionDeclarations, mountPathProp, boolProp, stringListProp, unknownProp,
      app: optionalProp(customProp((value) => typeof value === 'string' && value.length > 1, 'a name')),
      zodOnly: zodOnlyProp((zod) => zod.string()),
    };
    const values = [...anyValueList, 'userpass', 'a/b', ['a', 'b'], ['a', 1], ['a', undefined], new Array<string>(1), 'x'];
    for (const [name, declaration] of Object.entries(declarations)) {
      const schema = declaration.schema(z);
      for (const value of values) {
        if (declaration.accepts(value)) expect({ name, value, parsed: schema.safeParse(value).success }).toEqual({ name, value, parsed: true });
      }
    }
    expect(EXTRA.mount.accepts(mount) && EXTRA.mount.accepts('userpass') && EXTRA.mount.accepts(undefined)).toBe(true);
    expect(EXTRA.backend.accepts(backend) && !EXTRA.backend.accepts(mount) && !EXTRA.backend.accepts(undefined)).toBe(true);
    expect(mountPathProp.accepts('team/kv') && !mountPathProp.accepts('/lead')).toBe(true);
    expect(stringListProp.accepts(['a', 'b']) && !stringListProp.accepts(['a', 1])).toBe(true);
    expect(declarations.zodOnly.accepts('text')).toBe(false);
    expect(resourceOptionDeclarations.policyWaivers.accepts(undefined) && !resourceOptionDeclarations.policyWaivers.accepts({ a: 'b' })).toBe(true);
  });
});
