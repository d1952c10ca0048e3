import { createHash } from 'crypto';
import { checkTemplate, renderTemplate, TemplateError } from '../../src/devserver/template';

/** 2023-11-14T22:13:20.123Z */
const NOW_MS = 1_700_000_000_123;
const now = () => NOW_MS;

function render(source: string, data: Record<string, unknown> = {}, ldif = false): string {
  return renderTemplate(source, data, { ldif, now });
}

function errorOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateError);
    return (error as Error).message;
  }
  throw new Error('expected a TemplateError');
}

describe('template syntax', () => {
  it('substitutes fields with and without spaces inside the delimiters', () => {
    expect(render('a {{.Username}} b {{ .RoleName }}', { Username: 'u1', RoleName: 'r1' })).toBe('a u1 b r1');
  });

  it('reads nested fields and the root through $', () => {
    expect(render('{{ .A.B.C }}/{{ $.Top }}', { A: { B: { C: 'deep' } }, Top: 't' })).toBe('deep/t');
  });

  it('prints <no value> for a field missing from the data, like Go with map data', () => {
    expect(render('[{{ .Missing }}] [{{ .A.Missing }}]', { A: {} })).toBe('[<no value>] [<no value>]');
  });

  it('fails on a missing field when missingKey is error', () => {
    expect(errorOf(() => renderTemplate('x {{ .Missing }}', {}, { missingKey: 'error' }))).toBe(
      'template: 1:6: executing at <.Missing>: map has no entry for key "Missing"',
    );
  });

  it('refuses a missing field passed to a function', () => {
    expect(errorOf(() => render('{{ .Missing | lowercase }}'))).toBe(
      'template: 1:15: executing at <.Missing | lowercase>: invalid value; expected string',
    );
  });

  it('renders string literals with escapes, raw strings and integers', () => {
    expect(render('{{ "a\\tb\\"c\\u00e9" }}|{{ `raw\\n{{` }}|{{ 42 }}|{{ -7 }}')).toBe('a\tb"cé|raw\\n{{|42|-7');
  });

  it('pipes values through functions, the piped value being the last argument', () => {
    expect(render('{{ .X | lowercase | base64 }}', { X: 'HeLLo World' })).toBe('aGVsbG8gd29ybGQ=');
    expect(render('{{ .X | replace "-" "_" }}', { X: 'a-b-c' })).toBe('a_b_c');
    expect(render('{{ .RoleName | truncate 5 }}', { RoleName: 'abcdefgh' })).toBe('abcde');
  });

  it('evaluates parenthesized sub-pipelines as arguments', () => {
    expect(render('{{ printf "%s-%s" (.A | uppercase) (lowercase "XY") }}', { A: 'ab' })).toBe('AB-xy');
  });

  it('trims whitespace around actions with {{- and -}}', () => {
    expect(render('a  \n {{- .X -}} \n  b', { X: 'x' })).toBe('axb');
    expect(render('a {{- .X }} b', { X: 'x' })).toBe('ax b');
    expect(render('a {{ .X -}} b', { X: 'x' })).toBe('a xb');
  });

  it('treats {{-3}} as the number -3, not a trim marker', () => {
    expect(render('a {{-3}} b')).toBe('a -3 b');
  });

  it('drops comments', () => {
    expect(render('a{{/* note */}}b {{- /* trimmed */ -}} c')).toBe('abc');
  });

  it('chooses branches with if / else if / else using Go truthiness', () => {
    const tpl = '{{ if .A }}a{{ else if .B }}b{{ else }}none{{ end }}';
    expect(render(tpl, { A: 'yes', B: 'yes' })).toBe('a');
    expect(render(tpl, { A: '', B: 1 })).toBe('b');
    expect(render(tpl, { A: 0, B: false })).toBe('none');
    expect(render(tpl, {})).toBe('none');
  });

  it('ranges over lists with dot set to each element, and runs else on an empty list', () => {
    expect(render('{{ range .L }}[{{ . }}]{{ else }}empty{{ end }}', { L: ['a', 'b'] })).toBe('[a][b]');
    expect(render('{{ range .L }}[{{ . }}]{{ else }}empty{{ end }}', { L: [] })).toBe('empty');
  });

  it('supports with, setting dot to the value', () => {
    expect(render('{{ with .A }}{{ .B }}{{ else }}no{{ end }}', { A: { B: 'inner' } })).toBe('inner');
    expect(render('{{ with .A }}{{ .B }}{{ else }}no{{ end }}', {})).toBe('no');
  });
});

describe('template functions', () => {
  it('random N returns N letters and digits, different each time', () => {
    const a = render('{{ random 20 }}');
    expect(a).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(render('{{ random 20 }}')).not.toBe(a);
    expect(render('{{ random 0 }}')).toBe('');
  });

  it('truncate N keeps the first N characters and leaves shorter values alone', () => {
    expect(render('{{ truncate 3 "abcdef" }}')).toBe('abc');
    expect(render('{{ truncate 10 "abc" }}')).toBe('abc');
    expect(render('{{ truncate 2 "éèà" }}')).toBe('éè');
    expect(errorOf(() => render('{{ truncate 0 "abc" }}'))).toBe(
      'template: 1:4: executing at <truncate 0 "abc">: error calling truncate: max length must be > 0 but was 0',
    );
  });

  it('truncate_sha256 N ends the N characters with the first 8 hex digits of the hash of the value truncated to N', () => {
    const value = 'abcdefghijklmnopqrstuvwxyz';
    // Independently computed: "abcdefghijkl" + sha256("abcdefghijklmnopqrst")[:8].
    expect(render('{{ truncate_sha256 20 .V }}', { V: value })).toBe('abcdefghijkldd65eea0');
    const expectedHash = createHash('sha256').update(value.slice(0, 20)).digest('hex').slice(0, 8);
    expect(render('{{ .V | truncate_sha256 20 }}', { V: value })).toBe(value.slice(0, 12) + expectedHash);
    expect(render('{{ .V | truncate_sha256 20 }}', { V: value }).length).toBe(20);
  });

  it('truncate_sha256 returns values no longer than N unchanged and needs N above 8', () => {
    expect(render('{{ truncate_sha256 26 .V }}', { V: 'abcdefghijklmnopqrstuvwxyz' })).toBe('abcdefghijklmnopqrstuvwxyz');
    expect(render('{{ truncate_sha256 10 "short" }}')).toBe('short');
    expect(errorOf(() => render('{{ truncate_sha256 8 "abcdefghijk" }}'))).toBe(
      'template: 1:4: executing at <truncate_sha256 8 "abcdefghijk">: error calling truncate_sha256: max length must be > 8 but was 8',
    );
  });

  it('uppercase and lowercase', () => {
    expect(render('{{ uppercase "MiXed-1" }} {{ lowercase "MiXed-1" }}')).toBe('MIXED-1 mixed-1');
  });

  it('replace replaces every occurrence', () => {
    expect(render('{{ replace "-" "" "a-b-c" }}')).toBe('abc');
    expect(render('{{ .DisplayName | replace "token-" "" | replace "-" "_" }}', { DisplayName: 'token-my-app' })).toBe('my_app');
  });

  it('sha256 prints the hex digest and base64 the standard encoding', () => {
    expect(render('{{ sha256 "my-role" }}')).toBe('5e22808883d2437657589405a0b0966911fbf06f72304ebb4731c9ecba865e3d');
    expect(render('{{ base64 "hello world" }}')).toBe('aGVsbG8gd29ybGQ=');
  });

  it('unix_time and unix_time_millis read the clock', () => {
    expect(render('{{ unix_time }} {{ unix_time_millis }}')).toBe('1700000000 1700000000123');
  });

  it('timestamp formats with Go layouts in UTC', () => {
    expect(render('{{ timestamp "2006-01-02T15:04:05Z07:00" }}')).toBe('2023-11-14T22:13:20Z');
    expect(render('{{ timestamp "Mon Jan _2 03:04:05.000 PM MST 06 -0700" }}')).toBe(
      'Tue Nov 14 10:13:20.123 PM UTC 23 +0000',
    );
    expect(render('{{ timestamp "20060102150405" }}')).toBe('20231114221320');
    expect(render('{{ timestamp "Monday, January 2 .999" }}')).toBe('Tuesday, November 14 .123');
  });

  it('uuid returns a fresh version 4 UUID', () => {
    const id = render('{{ uuid }}');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(render('{{ uuid }}')).not.toBe(id);
  });

  it('printf supports %s %d %v %q, widths, and reports missing and extra arguments like Go', () => {
    expect(render('{{ printf "%s=%d %v %q" .K .N .L .K }}', { K: 'key', N: 42, L: ['a', 'b'] })).toBe('key=42 [a b] "key"');
    expect(render('{{ printf "%05d|%-4s|%4s|%x" 7 "ab" "cd" "hi" }}')).toBe('00007|ab  |  cd|6869');
    expect(render('{{ printf "%d %s" 1 }}')).toBe('1 %!s(MISSING)');
    expect(render('{{ printf "%d" "x" }}')).toBe('%!d(string=x)');
    expect(render('{{ printf "%s" "a" 2 }}')).toBe('a%!(EXTRA int=2)');
    expect(render('{{ printf "%q" "a\\"b\\n" }}')).toBe('"a\\"b\\n"');
  });

  it('utf16le encodes to UTF-16LE bytes in LDIF templates, typically then base64', () => {
    // The directory password form: the quoted password as UTF-16LE, base64-encoded.
    expect(render('{{ printf "%q" .Password | utf16le | base64 }}', { Password: 'Passw0rd!' }, true)).toBe(
      'IgBQAGEAcwBzAHcAMAByAGQAIQAiAA==',
    );
    expect(render('{{ .Password | utf16le | base64 }}', { Password: 'pässword' }, true)).toBe('cADkAHMAcwB3AG8AcgBkAA==');
    expect(render('{{ "pw" | utf16le | sha256 }}', {}, true)).toBe(
      createHash('sha256').update(Buffer.from([0x70, 0, 0x77, 0])).digest('hex'),
    );
  });

  it('refuses utf16le outside LDIF templates', () => {
    expect(errorOf(() => render('{{ .Password | utf16le | base64 }}', { Password: 'x' }))).toBe(
      'template: 1:16: function "utf16le" not defined',
    );
    expect(() => checkTemplate('{{ utf16le "x" }}', { ldif: true })).not.toThrow();
    expect(() => checkTemplate('{{ utf16le "x" }}')).toThrow(TemplateError);
  });

  it('renders the default username template in its documented shape', () => {
    const name = render('v_{{.DisplayName}}_{{.RoleName}}_{{random 10}}_{{unix_time}}', {
      DisplayName: 'token-app',
      RoleName: 'dyn_role',
    });
    expect(name).toMatch(/^v_token-app_dyn_role_[A-Za-z0-9]{10}_1700000000$/);
  });

  it('supports the comparison and logic built-ins', () => {
    expect(render('{{ if eq .N 3 }}three{{ end }} {{ if and .A (not .B) }}ok{{ end }} {{ len .S }} {{ index .L 1 }}', {
      N: 3,
      A: true,
      B: false,
      S: 'héllo',
      L: ['x', 'y'],
    })).toBe('three ok 6 y');
    expect(render('{{ if lt 1 2 }}lt{{ end }} {{ or "" "fallback" }}')).toBe('lt fallback');
  });
});

describe('template errors', () => {
  it('reports an unknown function with its line and column', () => {
    expect(errorOf(() => checkTemplate('cn={{ .Username | rnadom }}'))).toBe('template: 1:19: function "rnadom" not defined');
    expect(errorOf(() => render('line one\n  {{ rnadom 5 }}'))).toBe('template: 2:6: function "rnadom" not defined');
  });

  it('reports parse errors with positions', () => {
    expect(errorOf(() => checkTemplate('abc {{ .X '))).toBe('template: 1:5: unclosed action');
    expect(errorOf(() => checkTemplate('{{ if .X }}yes'))).toBe('template: 1:15: unexpected EOF in {{if}}');
    expect(errorOf(() => checkTemplate('a\n{{ end }}'))).toBe('template: 2:4: unexpected {{end}}');
    expect(errorOf(() => checkTemplate('{{ .X | }}'))).toBe('template: 1:9: missing command in pipeline');
    expect(errorOf(() => checkTemplate('{{ }}'))).toBe('template: 1:4: missing value for command');
    expect(errorOf(() => checkTemplate('{{ "abc }}'))).toBe('template: 1:4: unterminated quoted string');
    expect(errorOf(() => checkTemplate('{{ .X | "lit" }}'))).toBe('template: 1:9: non executable command in pipeline stage 2');
    expect(errorOf(() => checkTemplate('{{ (lowercase "A" }}'))).toBe('template: 1:19: unexpected "}}" in parenthesized pipeline');
  });

  it('reports wrong argument counts and types when executing', () => {
    expect(errorOf(() => render('{{ random }}'))).toBe('template: 1:4: executing at <random>: wrong number of args for random: want 1 got 0');
    expect(errorOf(() => render('{{ random "ten" }}'))).toBe(
      'template: 1:4: executing at <random "ten">: wrong type for value; expected int; got string',
    );
    expect(errorOf(() => render('{{ .N | lowercase }}', { N: 5 }))).toBe(
      'template: 1:9: executing at <.N | lowercase>: wrong type for value; expected string; got int',
    );
    expect(errorOf(() => render('{{ .X "arg" }}', { X: 'v' }))).toBe(
      'template: 1:4: executing at <.X "arg">: can\'t give argument to non-function .X',
    );
  });

  it('accepts valid templates in checkTemplate without rendering them', () => {
    expect(() => checkTemplate('svc/{{ .MountAccessor }}/{{ .SecretPath | replace "/" "_" }}')).not.toThrow();
  });
});
