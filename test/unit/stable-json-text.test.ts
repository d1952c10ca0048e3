// secretform writes each stack's cdk.tf.json itself for cdktf's own synthesizer (stack-file.ts), with node's
// native JSON writer (stable-json-text.ts): its bytes must be exactly those of cdktf's writer,
// json-stable-stringify with `{ space: 2 }`, for any configuration, and any configuration it cannot write
// natively goes to the port of that library, which must give the library's text too.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, TerraformResource, TerraformStack } from 'cdktf';
import fc from 'fast-check';
import { AuthMount, SecretValue, UserpassUser } from '../../src';
import { onStackConfiguration, writesStableJson } from '../../src/constructs/cdktf-adapter';
import { writeStackFile } from '../../src/constructs/stack-file';
import { consumeStableJson, libraryText, stableJsonText } from '../../src/constructs/stable-json-text';
import { tempDir } from '../support/temp-dir';

// cdktf's own JSON writer, as its synthesizer writes cdk.tf.json.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const stableStringify = require(require.resolve('json-stable-stringify', { paths: [path.dirname(require.resolve('cdktf'))] })) as (value: unknown, options?: { space?: number }) => string | undefined;
const library = (value: unknown) => stableStringify(value, { space: 2 });

// What a configuration's text can trip over: the markers of empty values, quotes, escapes, integer-like keys.
const fragment = fc.constantFrom('\u0000', '\u0000{}', '\u0000[]', '"', ' "', ': ', '\\', '\n', '{}', '[]', '\u{1F600}', '\ud800', '0', '17', '4294967295', '-1', '01', 'a', 'Z', ' ');
const text = fc.array(fc.oneof(fc.string(), fragment), { maxLength: 3 }).map((parts) => parts.join(''));
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.constant(() => 1),
    fc.constant(new Date(0)),
    fc.constantFrom({}, [], { u: undefined }, { f: () => 1 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 5 }),
  ),
}));

describe('the native writer and the port give json-stable-stringify\'s text', () => {
  test('for any value', () => {
    fc.assert(
      fc.property(value, (candidate) => {
        const expected = library(candidate);
        expect(stableJsonText(candidate)).toBe(expected);
        expect(libraryText(candidate)).toBe(expected);
      }),
      { numRuns: 4000 },
    );
  });

  test('for the cases the native writer leaves to the port, or writes around', () => {
    const cases: unknown[] = [
      {},
      [],
      { a: {}, b: [], c: [{}, [], [[]]], d: { e: { f: {} } } },
      // Below the levels written member by member: values written natively, empty ones whole or within.
      { a: { b: { c: {}, d: [], e: { u: undefined }, f: { g: {}, h: [[], {}] } } }, z: [[[[]]]] },
      [[[{ deep: { deeper: [{}, { x: 1 }] }, u: undefined, '10': 1, '9': 2 }]]],
      // Members the writers leave out: an object of only those is empty.
      { a: { u: undefined, f: () => 1, s: Symbol('s') }, b: [undefined, () => 1] },
      // Objects out of order whose keys extend another's (the writer remembers recent key orders).
      [{ zq: 1, yq: 2 }, { zq: 1, yq: 2, xq: 3 }, { zq: 1 }, { zq: 1, yq: 2 }],
      // Integer-like keys, out of order and in.
      { '10': 1, '9': 2, a: 3, '1': 4, '-1': 5, '01': 6 },
      { '1': 1, '10': 2, '9': 3 },
      // Marker text as keys and values, inside strings and whole.
      { '\u0000{}': 1 },
      { a: '\u0000{}' },
      ['\u0000[]'],
      { b: 1, a: 'x\u0000{}', c: ' \u0000{}', d: '"\u0000{}"', e: ': "\u0000[]"' },
      // toJSON: the library calls it without the key.
      { when: new Date(0) },
      { keyed: { toJSON: (key?: string) => `key ${String(key)}` } },
      { list: [{ toJSON: (key?: string) => key }] },
      { called: Object.assign(() => 1, { toJSON: (key?: string) => `function ${String(key)}` }) },
      new Date(0),
      -0,
      Number.NaN,
      '\u0000{}',
      undefined,
    ];
    for (const candidate of cases) {
      expect({ candidate, text: stableJsonText(candidate) }).toEqual({ candidate, text: library(candidate) });
      expect({ candidate, text: libraryText(candidate) }).toEqual({ candidate, text: library(candidate) });
    }
  });

  test('a cycle throws the library\'s error', () => {
    const cyclic: Record<string, unknown> = { b: 1 };
    cyclic.a = { back: cyclic };
    expect(() => library(cyclic)).toThrow(TypeError);
    expect(() => stableJsonText(cyclic)).toThrow(new TypeError('Converting circular structure to JSON'));
  });
});

describe('synth writes cdk.tf.json itself with cdktf\'s bytes', () => {
  test('the file is the library\'s text of the configuration the stack built', () => {
    const outdir = tempDir('secretform-stable-json-');
    const app = new App({ outdir });
    const stack = new TerraformStack(app, 'prod');
    const userpass = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
    new UserpassUser(stack, 'ci', { mount: userpass, username: 'ci', password: SecretValue.fromEnv('CI_PASSWORD'), tokenPolicies: ['deploy'] });
    // The user's own resource, with keys cdktf keeps in insertion order and an empty object.
    const own = new TerraformResource(stack, 'own', { terraformResourceType: 'terraform_data' });
    own.addOverride('input', { zeta: 1, alpha: {}, '10': 'ten', '9': 'nine', list: [] });
    let configuration: Record<string, unknown> | undefined;
    // Registered after secretform's hooks: sees the configuration once complete.
    onStackConfiguration(stack, (built) => {
      configuration = built;
    });
    const synthesizer = (stack as unknown as { synthesizer: { synthesize: unknown } }).synthesizer;
    expect(writesStableJson(stack, synthesizer, Object.getPrototypeOf(synthesizer).synthesize)).toBe(true);
    app.synth();
    const written = fs.readFileSync(path.join(outdir, 'stacks', 'prod', 'cdk.tf.json'), 'utf8');
    expect(configuration).toBeDefined();
    expect(written).toBe(library(configuration));
    expect(written).toContain('"10": "ten"');
  });

  test('the file\'s bytes are the text\'s, across the writer\'s 1 MB buffer and surrogate pairs cut by it', () => {
    const outdir = tempDir('secretform-stable-json-');
    const file = path.join(outdir, 'cdk.tf.json');
    // Astral characters (4 bytes, 2 units) and empty objects around and past the buffer's size, at odd offsets.
    for (const size of [1, 87_381, 262_143, 262_145, 600_000]) {
      const configuration = { a: {}, b: `x${'\u{1F600}'.repeat(size)}`, c: ['é'.repeat(size), {}], d: 'ascii'.repeat(size) };
      writeStackFile(file, configuration);
      expect(fs.readFileSync(file).equals(Buffer.from(library(configuration)!, 'utf8'))).toBe(true);
    }
  });

  test('a value only the port writes, after megabytes already written, gives the library\'s file from its start', () => {
    const outdir = tempDir('secretform-stable-json-');
    const file = path.join(outdir, 'cdk.tf.json');
    // The resources are written one by one as they are made: the first (past the writer's 1 MB buffer) is in the
    // file when the last, whose toJSON the library calls without its key, sends the whole text to the port.
    const configuration = { resource: { terraform_data: { a: { input: 'x'.repeat(1_500_000) }, b: {}, z: { input: { when: new Date(0) } } } } };
    // Units each call took: the native writer's first resource, then the port's whole text.
    const taken: number[] = [];
    consumeStableJson(configuration, (pieces) => {
      taken.push(0);
      for (const piece of pieces) taken[taken.length - 1] += piece.length;
    });
    expect(taken).toHaveLength(2);
    expect(taken[0]).toBeGreaterThan(1_500_000);
    expect(taken[1]).toBe(library(configuration)!.length);
    writeStackFile(file, configuration);
    expect(fs.readFileSync(file, 'utf8')).toBe(library(configuration));
  });

  test('an error of the file\'s writing is not taken for a value the port must write', () => {
    const failure = new Error('disk full');
    let calls = 0;
    expect(() => consumeStableJson({ resource: { a: { b: {} } } }, (pieces) => {
      calls++;
      for (const piece of pieces) if (piece.length > 0) throw failure;
    })).toThrow(failure);
    expect(calls).toBe(1);
  });

  test('an app\'s own synthesizer writes its file itself', () => {
    const outdir = tempDir('secretform-stable-json-');
    const stack = new TerraformStack(new App({ outdir }), 'prod');
    new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
    const synthesizer = (stack as unknown as { synthesizer: object }).synthesizer;
    expect(writesStableJson(stack, synthesizer, function synthesize() {})).toBe(false);
    expect(writesStableJson(stack, { hclOutput: true }, Object.getPrototypeOf(synthesizer).synthesize)).toBe(false);
  });
});
