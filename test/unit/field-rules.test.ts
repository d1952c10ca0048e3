import { durationProblem, MAX_DURATION_SECONDS, parseDuration } from '../../src/resources/duration';
import { field } from '../../src/resources/field';
import { fieldValueProblems, MAX_TEXT_LENGTH } from '../../src/resources/field-rules';
import { isSafeApiPath, NAME_MAX_LENGTH, pathValueProblems } from '../../src/resources/names';
import { RESOURCE_TYPES } from '../../src/resources/registry';
import { SECRET_NAME_TEMPLATE, TEMPLATE_RANDOM_MAX, templateProblems, USERNAME_TEMPLATE } from '../../src/resources/template';

const single = { segment: 'single' as const };
const hierarchical = { segment: 'hierarchical' as const };

describe('path values (names.ts)', () => {
  test.each([
    ['.', single, 'not "." or ".."'],
    ['..', single, 'not "." or ".."'],
    ['a/b', single, 'no "/"'],
    ['..', hierarchical, 'no "." or ".." segment'],
    ['a/./b', hierarchical, 'no "." or ".." segment'],
    ['a/%2e%2E/b', hierarchical, 'no "." or ".." segment'],
    ['%2e', single, 'not "." or ".."'],
    ['a//b', hierarchical, 'no empty segment'],
    ['/a', hierarchical, 'no empty segment'],
    ['a/', hierarchical, 'no empty segment'],
    ['a\\..\\b', hierarchical, 'no "\\"'],
    ['a\u0000b', hierarchical, 'no control characters'],
    ['a\u0085b', single, 'no control characters'],
    ['a\u007fb', single, 'no control characters'],
    ['', single, 'must not be empty'],
    ['x'.repeat(NAME_MAX_LENGTH + 1), single, `at most ${NAME_MAX_LENGTH} characters`],
  ])('refuses %j as a %j value', (value, facts, allowed) => {
    expect(pathValueProblems(facts, value).join('; ')).toContain(allowed);
  });

  test.each([['svc'], ['team/a/svc'], ['a.b'], ['...'], ['x'.repeat(NAME_MAX_LENGTH)], ['rôle/é']])('accepts %j as a hierarchical name', (value) => {
    expect(pathValueProblems(hierarchical, value)).toEqual([]);
  });

  test('refuses a reserved first segment, and only the first', () => {
    const facts = { ...hierarchical, reservedFirstSegments: ['sys', 'auth'] };
    expect(pathValueProblems(facts, 'sys/x').join()).toContain('reserved by the service');
    expect(pathValueProblems(facts, 'auth').join()).toContain('reserved by the service');
    expect(pathValueProblems(facts, 'team/sys')).toEqual([]);
    expect(pathValueProblems(facts, 'system')).toEqual([]);
  });

  test('checks the length before scanning a 200,000-character value', () => {
    expect(pathValueProblems(hierarchical, '../'.repeat(70_000))).toEqual([`at most ${NAME_MAX_LENGTH} characters (received 210000)`]);
  });

  test('isSafeApiPath refuses dot, empty and control-character segments', () => {
    expect(isSafeApiPath('ldap/static-role/svc')).toBe(true);
    for (const path of ['ldap/static-role/../config', 'ldap//x', 'ldap/x/', 'ldap/./x', 'ldap/x\ny', 'a/%2E%2e']) expect(isSafeApiPath(path)).toBe(false);
  });

  test('every field that holds a name or mount path of an API path declares it', () => {
    const declared = RESOURCE_TYPES.flatMap((type) => type.fields.filter((f) => f.segment).map((f) => `${type.type}.${f.api}`));
    expect(declared.sort()).toEqual([
      'auth_mount.path', 'cloud_secret_backend.path', 'cloud_secret_role.mount', 'cloud_secret_role.name',
      'ldap_dynamic_role.mount', 'ldap_dynamic_role.name', 'ldap_library_set.mount', 'ldap_library_set.name',
      'ldap_secret_backend.path', 'ldap_static_role.mount', 'ldap_static_role.name', 'secrets_mount.path',
      'sync_association.mount', 'sync_association.secret_name',
      'sync_destination_cloud1_sm.name', 'sync_destination_cloud2_kv.name', 'sync_destination_cloud3_sm.name',
      'sync_destination_repohost.app_name', 'sync_destination_repohost.name', 'sync_destination_webhost_project.name',
      'sync_github_app.name', 'userpass_user.mount', 'userpass_user.username',
    ]);
  });
});

describe('durations (duration.ts)', () => {
  test.each([
    ['4.1m', 246], ['4.1h', 14760], ['2.05m', 123], ['1.1h', 3960], ['4.35m', 261], ['1h30m', 5400], ['90s', 90], ['48d', 4147200],
    ['1500ms', 1], ['0.9999999999s', 0], ['3600', 3600], [3600, 3600], ['0', 0], [' 1h ', 3600],
  ])('%j is %d seconds, as the service computes it (whole nanoseconds, truncated to seconds)', (value, seconds) => {
    expect(parseDuration(value)).toBe(seconds);
  });

  test('refuses durations beyond what the service holds, naming the limit', () => {
    expect(parseDuration(MAX_DURATION_SECONDS)).toBe(MAX_DURATION_SECONDS);
    for (const value of [MAX_DURATION_SECONDS + 1, 2 ** 53, 2 ** 60, 1e300, `${MAX_DURATION_SECONDS + 1}`, '106752d', '9'.repeat(40)]) {
      expect(parseDuration(value)).toBeUndefined();
      expect(durationProblem(value)).toContain(`at most ${MAX_DURATION_SECONDS} seconds`);
    }
  });

  test('refuses what is no duration', () => {
    for (const value of ['soon', '1x', '', '-5s', 1.5, -1, NaN, Infinity, '1h 30m', '.5h', '1'.repeat(300) + 's']) {
      expect(parseDuration(value)).toBeUndefined();
      expect(durationProblem(value)).toContain('expected a duration');
    }
  });
});

describe('templates (template.ts)', () => {
  test(`random N takes 0..${TEMPLATE_RANDOM_MAX}`, () => {
    expect(templateProblems(`{{random ${TEMPLATE_RANDOM_MAX}}}`, USERNAME_TEMPLATE)).toEqual([]);
    expect(templateProblems('{{random 0}}', USERNAME_TEMPLATE)).toEqual([]);
    for (const n of [`${TEMPLATE_RANDOM_MAX + 1}`, '100000000', '-1', '1e9']) {
      expect(templateProblems(`{{random ${n}}}`, USERNAME_TEMPLATE).join()).toContain(`"random N" takes an integer N from 0 to ${TEMPLATE_RANDOM_MAX}`);
      expect(templateProblems(`{{ ${n} | random }}`, USERNAME_TEMPLATE).join()).toContain('"random N"');
    }
  });

  test('secret name templates take .MountAccessor, .SecretPath and .SecretKey only', () => {
    expect(templateProblems('svc/{{ .MountAccessor }}/{{ .SecretPath }}/{{ .SecretKey }}', SECRET_NAME_TEMPLATE)).toEqual([]);
    expect(templateProblems('{{ .NamespacePath }}', SECRET_NAME_TEMPLATE).join()).toContain('unknown field ".NamespacePath"');
  });
});

describe('fieldValueProblems (the one check constructs run on every field)', () => {
  test('an integer field refuses a number that is not a safe integer', () => {
    const count = field('count', 'int', 'A count.');
    expect(fieldValueProblems(count, 2 ** 53 - 1)).toEqual([]);
    for (const value of [2 ** 53, 1e300, 1.5, NaN]) expect(fieldValueProblems(count, value).join()).toContain('a whole number from');
  });

  test('a string field with maxLength refuses longer values', () => {
    const text = field('text', 'string', 'A text.', { maxLength: 3 });
    expect(fieldValueProblems(text, 'abc')).toEqual([]);
    expect(fieldValueProblems(text, 'abcd')).toEqual(['at most 3 characters (received 4)']);
  });

  test('a template field is checked with the fields its facts allow', () => {
    const template = field('t', 'template', 'A template.', { template: USERNAME_TEMPLATE });
    expect(fieldValueProblems(template, '{{.RoleName}}')).toEqual([]);
    expect(fieldValueProblems(template, '{{.Password}}').join()).toContain('unknown field ".Password"');
  });

  test('values of another kind are reported (a hand-edited cdk.tf.json has no props schema in front)', () => {
    expect(fieldValueProblems(field('n', 'string', 'A name.', single), 42)).toEqual(['expected a string, received a number']);
    expect(fieldValueProblems(field('d', 'duration', 'A duration.'), { a: 1 })).toEqual([expect.stringContaining('expected a duration')]);
    expect(fieldValueProblems(field('d', 'duration', 'A duration.'), -5)).toEqual([expect.stringContaining('expected a duration')]);
    expect(fieldValueProblems(field('d', 'duration', 'A duration.', { minimum: 5 }), 2)).toEqual(['at least 5 seconds']);
    expect(fieldValueProblems(field('i', 'int', 'A count.'), 1e308)).toEqual([expect.stringContaining('a whole number from')]);
    expect(fieldValueProblems(field('i', 'int', 'A count.', { minimum: 0 }), -1)).toEqual(['must be >= 0']);
    expect(fieldValueProblems(field('b', 'bool', 'A flag.'), 'true')).toEqual(['expected true or false, received a string']);
    expect(fieldValueProblems(field('l', 'stringList', 'Names.'), ['a', 3])).toEqual(['[1]: expected a string, received a number']);
    expect(fieldValueProblems(field('m', 'stringMap', 'Tags.'), { a: { b: 1 } })).toEqual(['a: expected a string, received an object']);
    expect(fieldValueProblems(field('o', 'objectList', 'Items.'), [1])).toEqual(['[0]: expected an object, received a number']);
    expect(fieldValueProblems(field('s', 'string', 'A choice.', { allowed: ['x', 'y'] }), 'z')).toEqual(['allowed values: "x", "y"']);
  });

  test('a 10 MB string is refused by its length before anything scans it', () => {
    const huge = 'x'.repeat(10 * 1024 * 1024);
    for (const kind of ['string', 'template', 'ldif'] as const) {
      expect(fieldValueProblems(field('t', kind, 'Text.'), huge)).toEqual([`at most ${MAX_TEXT_LENGTH} characters (received ${huge.length})`]);
    }
    expect(fieldValueProblems(field('l', 'stringList', 'Names.'), [huge])).toEqual([`[0]: at most ${MAX_TEXT_LENGTH} characters (received ${huge.length})`]);
  });
});
