/**
 * The specs record synth writes next to each stack's cdk.tf.json (setup/desired-specs-record.ts), from which a plan
 * loads the desired state while the file is as synth left it:
 * - the desired state loaded from the record is the one loaded from the file, to the order of every object and
 *   key, for every stack of the examples and the bench apps (every resource type, connections, both bridges);
 * - it is used only while the file has not been written since synth (then the file is read in full), and never
 *   when it does not load (the file then says what is wrong);
 * - no secret value in it; none for a stack synthesized without validation, and an earlier one is removed.
 */
import { copyFileSync, cpSync, existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { App, TerraformStack } from 'cdktf';
import fc from 'fast-check';
import { AuthMount, SecretValue, ServiceConnection, UserpassUser } from '../../src';
import { listSynthesizedStacks, loadDesired } from '../../src/engine/setup/desired';
import { readRecordedSpecs, SPECS_RECORD_FILE, writeSpecsRecord } from '../../src/engine/setup/desired-specs-record';
import { fileIdentity } from '../../src/engine/setup/stack-file-identity';
import { runAppProcess } from '../support/app-process';
import { tempDir as makeTempDir } from '../support/temp-dir';

// cdktf's own JSON writer, as its synthesizer (and secretform's, with the same bytes) writes cdk.tf.json.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const stableStringify = require(require.resolve('json-stable-stringify', { paths: [dirname(require.resolve('cdktf'))] })) as (value: unknown, options?: { space?: number }) => string | undefined;

jest.setTimeout(180_000);

const ROOT = resolve(__dirname, '..', '..');
const PASSWORD = 'specs-record-password-8c2d1';

/** A temporary directory of this file (removed when it ends, test/support/temp-dir.ts). */
function tempDir(name: string): string {
  return makeTempDir(`secretform-specs-${name}-`);
}

/** The desired stack as JSON text: equal texts mean the same values, objects and keys in the same order. */
function desiredText(outdir: string, stack: string): string {
  return JSON.stringify(loadDesired(outdir, stack), (_key, value: unknown) => (value instanceof SecretValue ? { secret: value.describe() } : value));
}

/** For every stack: a record was written, and the desired state from it is the one from the file read in full. */
function expectRecordLoadsAsFile(outdir: string): void {
  const withoutRecords = tempDir('copy');
  cpSync(outdir, withoutRecords, { recursive: true });
  const stacks = listSynthesizedStacks(outdir);
  expect(stacks.length).toBeGreaterThan(0);
  for (const stack of stacks) {
    expect(existsSync(join(outdir, 'stacks', stack, SPECS_RECORD_FILE))).toBe(true);
    rmSync(join(withoutRecords, 'stacks', stack, SPECS_RECORD_FILE));
    const fromRecord = desiredText(outdir, stack);
    expect({ stack, desired: fromRecord }).toEqual({ stack, desired: desiredText(withoutRecords, stack) });
    expect(JSON.parse(fromRecord).resources.length).toBeGreaterThan(0);
  }
}

describe('the desired state from a specs record is the one from its file, for every stack of', () => {
  test('examples/platform and examples/environments', () => {
    const tsx = require.resolve('tsx/cli');
    for (const example of ['platform', 'environments']) expectRecordLoadsAsFile(runAppProcess(example, [tsx, 'main.ts'], join(ROOT, 'examples', example), {}));
  });

  test('the bench apps (every resource type of the mix, several stacks; the null_resource bridge; the fleet with its connections)', () => {
    const benchApp = tempDir('bench-app');
    for (const name of ['app', 'mix']) copyFileSync(join(ROOT, 'bench', `${name}.ts`), join(benchApp, `${name}.ts`));
    const tsx = require.resolve('tsx/cli');
    expectRecordLoadsAsFile(runAppProcess('bench', [tsx, 'app.ts'], benchApp, { BENCH_ROOT: ROOT, BENCH_SIZE: '300', BENCH_STACKS: '3' }));
    expectRecordLoadsAsFile(runAppProcess('bench-null', [tsx, 'app.ts'], benchApp, {
      BENCH_ROOT: ROOT, BENCH_SIZE: '100', CDKTF_CONTEXT_JSON: JSON.stringify({ 'secretform:bridge': 'null_resource' }),
    }));
    expectRecordLoadsAsFile(runAppProcess('fleet', [tsx, join(ROOT, 'bench', 'fleet-app.ts')], ROOT, {
      BENCH_ROOT: ROOT, FLEET_STACKS: '3', FLEET_OBJECTS: '50', FLEET_SERVERS: 'http://127.0.0.1:8201,https://secrets.example.com:8200/prefix',
    }));
  });
});

/** Each value as its keys' order shows (JSON.stringify keeps it): equal texts, equal values in the same order. */
const inOrder = (value: unknown): string => JSON.stringify(value);

// What key orders can trip over: integer-like keys (JSON.parse lists them first), "__proto__", escapes, undefined.
const key = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('0', '17', '4294967295', '01', '-1', '__proto__', 'a', 'Z', '"', '\\', '\u{1F600}'));
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    fc.string({ maxLength: 6 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('json'), { maxLength: 4 }),
    fc.dictionary(key, fc.oneof(tie('json'), fc.constant(undefined)), { maxKeys: 5 }),
  ),
}));

test('a record holds the objects a parse of the file gives, keys in the same order, for any JSON data', () => {
  const dir = tempDir('property');
  const stackFile = join(dir, 'cdk.tf.json');
  writeFileSync(stackFile, '{}');
  fc.assert(fc.property(fc.array(json, { maxLength: 4 }), json, (specs, connection) => {
    const configuration = {
      '//': { secretform: { connection } },
      resource: { terraform_data: Object.fromEntries(specs.map((spec, index) => [`r${(index * 7) % 5}${index}`, { '//': { secretform: spec }, input: { x: index } }])) },
    };
    writeSpecsRecord(dir, configuration, fileIdentity(stackFile)!);
    const recorded = readRecordedSpecs(stackFile)!;
    // The file as cdktf's writer writes it, parsed, and its objects listed as synthesized-spec.ts lists them.
    const file = JSON.parse(stableStringify(configuration, { space: 2 })!) as typeof configuration;
    const fromFile = Object.values(file.resource.terraform_data).map((block) => block['//'].secretform);
    return inOrder(recorded.specs) === inOrder(fromFile) && inOrder(recorded.connection) === inOrder(file['//'].secretform.connection);
  }), { numRuns: 500 });
  // A value JSON cannot hold as it is: no record (the file is read in full).
  for (const odd of [new Date(0), () => 1, Number.NaN, [undefined], { toJSON: () => 1 }]) {
    writeSpecsRecord(dir, { resource: { terraform_data: { a: { '//': { secretform: { spec: { odd } } } } } } }, fileIdentity(stackFile)!);
    expect(existsSync(join(dir, SPECS_RECORD_FILE))).toBe(false);
  }
});

/** An in-process app: a stack `prod` with a connection, a mount and a user whose description is `description`. */
function synthProd(outdir: string, description = 'logins', options: { skipValidation?: boolean; invalid?: boolean } = {}): void {
  const app = new App({ outdir, skipValidation: options.skipValidation });
  const prod = new TerraformStack(app, 'prod');
  new ServiceConnection(prod, 'service', { address: 'https://secrets.example.com:8200', tokenEnv: 'PROD_TOKEN' });
  const auth = new AuthMount(prod, 'userpass', { path: 'userpass', type: 'userpass', description });
  new UserpassUser(prod, 'ci', { mount: auth, username: options.invalid ? '' : 'ci', password: SecretValue.fromEnv('RECORD_PASSWORD'), tokenPolicies: ['default'] });
  app.synth();
}

/** The description of the stack's mount, as the plan would load it. */
function mountDescription(outdir: string): unknown {
  return loadDesired(outdir, 'prod').resources.find((resource) => resource.type === 'auth_mount')?.spec.description;
}

describe('a specs record is used only while its file is as synth left it', () => {
  test('the record while the file is unwritten; the file once written or touched, or when the record does not load', () => {
    const outdir = tempDir('prod');
    synthProd(outdir);
    const stackDir = join(outdir, 'stacks', 'prod');
    const file = join(stackDir, 'cdk.tf.json');
    const recordFile = join(stackDir, SPECS_RECORD_FILE);
    const record = readFileSync(recordFile, 'utf8');
    expect(mountDescription(outdir)).toBe('logins');

    // An altered record (the file untouched) is what the plan loads: the record, not the file, was read...
    writeFileSync(recordFile, record.replace('"logins"', '"from the record"'));
    expect(mountDescription(outdir)).toBe('from the record');
    // ...until the file is touched (times changed, bytes the same): then the file is read in full.
    utimesSync(file, new Date(), new Date(Date.now() - 60_000));
    expect(mountDescription(outdir)).toBe('logins');

    // A new synth writes a record for the new file; a hand edit of the file (a write) makes it unused.
    synthProd(outdir, 'described anew');
    expect(mountDescription(outdir)).toBe('described anew');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"described anew"', '"edited by hand"'));
    expect(mountDescription(outdir)).toBe('edited by hand');

    // A copy of the synth output (a CI cache restored): its files are new ones, the copy's record is not used.
    synthProd(outdir);
    const copy = tempDir('prod-copy');
    cpSync(outdir, copy, { recursive: true });
    const copiedRecord = join(copy, 'stacks', 'prod', SPECS_RECORD_FILE);
    writeFileSync(copiedRecord, readFileSync(copiedRecord, 'utf8').replace('"logins"', '"from the record"'));
    expect(mountDescription(copy)).toBe('logins');

    // Records that do not load: the file is read (and a file whose spec is broken is reported from the file).
    const good = readFileSync(recordFile, 'utf8');
    const [headerLine, bodyLine] = good.split('\n');
    const header = JSON.parse(headerLine) as { file: Record<string, string> };
    const body = JSON.parse(bodyLine) as { specs: Array<Record<string, unknown>> };
    const unusable = [
      'not json',
      `${'x'.repeat(600)}\n${bodyLine}`,
      headerLine,
      `${JSON.stringify({ ...header, version: 2 })}\n${bodyLine}`,
      `${JSON.stringify({ ...header, file: { ...header.file, ino: 'x' } })}\n${bodyLine}`,
      `${headerLine}\n${JSON.stringify({ ...body, specs: [{ ...body.specs[0], version: 9 }, ...body.specs.slice(1)] })}`,
      `${headerLine}\n${JSON.stringify({ ...body, specs: [...body.specs, { ...body.specs[0], dependsOn: ['prod/nowhere'] }] })}`,
      `${headerLine}\n${JSON.stringify({ ...body, connection: { construct: 'prod/service' } })}`,
      `${headerLine}\n${bodyLine.slice(0, -2)}`,
    ];
    for (const text of unusable) {
      writeFileSync(recordFile, text.replace('"logins"', '"from the record"'));
      expect(mountDescription(outdir)).toBe('logins');
    }
    // The record as synth wrote it, altered only where the description is: used again (the cases above were
    // refused for what they break, not for being altered).
    writeFileSync(recordFile, good.replace('"logins"', '"from the record"'));
    expect(mountDescription(outdir)).toBe('from the record');
    rmSync(recordFile);
    expect(mountDescription(outdir)).toBe('logins');
  });

  test('no secret value in a record; none for a stack synthesized without validation, and an earlier one is removed', () => {
    process.env.RECORD_PASSWORD = PASSWORD;
    try {
      const outdir = tempDir('skip');
      synthProd(outdir);
      const recordFile = join(outdir, 'stacks', 'prod', SPECS_RECORD_FILE);
      expect(readFileSync(recordFile, 'utf8')).not.toContain(PASSWORD);
      expect(readFileSync(recordFile, 'utf8')).toContain('"RECORD_PASSWORD"');
      synthProd(outdir, 'logins', { skipValidation: true, invalid: true });
      expect(readdirSync(join(outdir, 'stacks', 'prod'))).toEqual(['cdk.tf.json']);
    } finally {
      delete process.env.RECORD_PASSWORD;
    }
  });
});
