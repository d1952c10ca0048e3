/**
 * The digest record synth writes next to each stack's cdk.tf.json (setup/desired-digest-record.ts, written by
 * constructs/stack-digest.ts) and what change detection makes of it:
 * - the resumable SHA-256 it keeps gives node's digest, wherever the input is cut;
 * - the property that makes it safe: for every stack of an app, the digest the record gives == the digest apply
 *   records for the same synth output (the desired state loaded from the file), for any service address, over the
 *   two examples and the bench apps (run as the real apps, in processes of their own, against dist/);
 * - it is used only for the very bytes it was made from: a missing, edited, foreign or malformed record means
 *   "compute from the file", never a wrong "unchanged"; the bytes are hashed again only when the file's identity
 *   or times differ from synth's;
 * - no secret value in it; none for a stack synthesized without validation or as HCL.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { App, TerraformStack } from 'cdktf';
import fc from 'fast-check';
import { AuthMount, SecretValue, ServiceConnection, UserpassUser } from '../../src';
import { loadDesired, listSynthesizedStacks } from '../../src/engine/setup/desired';
import { digestOfDesired } from '../../src/engine/setup/desired-digest';
import { DIGEST_RECORD_FILE, readRecordedDigest, updateWithText } from '../../src/engine/setup/desired-digest-record';
import { ResumableSha256 } from '../../src/engine/setup/desired-digest-sha256';
import { secretVariablesOfConfiguration } from '../../src/secret-variables';
import { detectChangedStacks } from '../../src/engine/stacks/changed-stacks';
import { runAppProcess } from '../support/app-process';
import { tempDir as makeTempDir } from '../support/temp-dir';

jest.setTimeout(180_000);

const ROOT = resolve(__dirname, '..', '..');
const PASSWORD = 'digest-record-password-3b71e';
const SERVICES = [undefined, 'http://127.0.0.1:8200', 'https://secrets.example.com:8200/prefix', 'https://staging.secrets.example.com:8200'];

/** A temporary directory of this file (removed when it ends, test/support/temp-dir.ts). */
function tempDir(name: string): string {
  return makeTempDir(`secretform-record-${name}-`);
}

/** How many secret variable names the records checked by `digestsOf` listed (the examples and bench apps have some). */
let namesRecorded = 0;

/** Each stack's record-given digest and the digest apply records, for every service of SERVICES. */
function digestsOf(outdir: string): { recorded: Record<string, (string | undefined)[]>; applied: Record<string, string[]> } {
  const recorded: Record<string, (string | undefined)[]> = {};
  const applied: Record<string, string[]> = {};
  for (const stack of listSynthesizedStacks(outdir)) {
    const record = readRecordedDigest(join(outdir, 'stacks', stack));
    const desired = loadDesired(outdir, stack);
    recorded[stack] = SERVICES.map((service) => record?.digestFor(service));
    applied[stack] = SERVICES.map((service) => digestOfDesired(desired, service));
    expect({ stack, connection: record?.connection }).toEqual({ stack, connection: desired.connection });
    // The variables the next synth withholds from the app: those a parse of the file names.
    const parsed = [...secretVariablesOfConfiguration(JSON.parse(readFileSync(join(outdir, 'stacks', stack, 'cdk.tf.json'), 'utf8')))].sort();
    expect({ stack, secretVariables: record?.secretVariables }).toEqual({ stack, secretVariables: parsed });
    // The number of objects a plan over several stacks admits the stack to its server by, before loading it.
    expect({ stack, objects: record?.objects }).toEqual({ stack, objects: desired.resources.length });
    namesRecorded += parsed.length;
  }
  return { recorded, applied };
}

test('the resumable SHA-256 gives node\'s digest, however the input is cut and resumed', () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 700 }), fc.nat(), fc.nat(), (bytes, first, second) => {
    const cut = first % (bytes.length + 1);
    const cut2 = cut + (second % (bytes.length - cut + 1));
    const hash = new ResumableSha256().update(bytes.subarray(0, cut));
    const resumed = new ResumableSha256(hash.state()).update(bytes.subarray(cut, cut2)).update(bytes.subarray(cut2));
    return resumed.hexDigest() === createHash('sha256').update(bytes).digest('hex');
  }), { numRuns: 1000 });
  // Lengths around the padding's edges (55, 56, 63, 64 bytes in the last block).
  for (const length of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000]) {
    const bytes = Buffer.alloc(length, 0x61);
    expect(new ResumableSha256().update(bytes).hexDigest()).toBe(createHash('sha256').update(bytes).digest('hex'));
  }
  expect(() => new ResumableSha256({ chain: 'x', hashedBytes: 64, pending: new Uint8Array() })).toThrow(RangeError);
});

test('a text hashed a slice at a time gives the digest of its UTF-8 bytes, a surrogate pair across a slice\'s end too', () => {
  // Slices are a third of 1 MiB in UTF-16 units: put astral, 3-byte and 2-byte characters on and around the cuts.
  const step = Math.floor((1 << 20) / 3);
  const texts = [
    '',
    'plain ascii',
    `${'a'.repeat(step - 1)}\u{1F600}${'é'.repeat(5)}`,
    `${'中'.repeat(step)}\u{1F600}${'a'.repeat(step - 2)}\u{10FFFF}b`,
    `${'\u{1F600}'.repeat(step)}${'é'.repeat(step + 1)}`,
  ];
  for (const text of texts) {
    expect(updateWithText(new ResumableSha256(), text).hexDigest()).toBe(createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex'));
  }
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) =>
    updateWithText(new ResumableSha256(), text).hexDigest() === createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex')), { numRuns: 300 });
});

describe('the digest a record gives is the digest apply records, for every stack of', () => {
  test('examples/platform and examples/environments', () => {
    const tsx = require.resolve('tsx/cli');
    for (const example of ['platform', 'environments']) {
      const outdir = runAppProcess(example, [tsx, 'main.ts'], join(ROOT, 'examples', example), {});
      const stacks = listSynthesizedStacks(outdir);
      expect(stacks.length).toBeGreaterThan(0);
      for (const stack of stacks) expect(existsSync(join(outdir, 'stacks', stack, DIGEST_RECORD_FILE))).toBe(true);
      const { recorded, applied } = digestsOf(outdir);
      expect(recorded).toEqual(applied);
    }
  });

  test('the bench apps (every resource type of the mix, several stacks; the fleet with its connections)', () => {
    const benchApp = tempDir('bench-app');
    for (const name of ['app', 'mix']) copyFileSync(join(ROOT, 'bench', `${name}.ts`), join(benchApp, `${name}.ts`));
    const tsx = require.resolve('tsx/cli');
    const mixed = runAppProcess('bench', [tsx, 'app.ts'], benchApp, { BENCH_ROOT: ROOT, BENCH_SIZE: '300', BENCH_STACKS: '3' });
    const withNullResource = runAppProcess('bench-null', [tsx, 'app.ts'], benchApp, {
      BENCH_ROOT: ROOT, BENCH_SIZE: '100', CDKTF_CONTEXT_JSON: JSON.stringify({ 'secretform:bridge': 'null_resource' }),
    });
    const fleet = runAppProcess('fleet', [tsx, join(ROOT, 'bench', 'fleet-app.ts')], ROOT, {
      BENCH_ROOT: ROOT, FLEET_STACKS: '3', FLEET_OBJECTS: '50', FLEET_SERVERS: 'http://127.0.0.1:8201,https://secrets.example.com:8200/prefix',
    });
    for (const outdir of [mixed, withNullResource, fleet]) {
      const { recorded, applied } = digestsOf(outdir);
      expect(Object.values(recorded).flat()).not.toContain(undefined);
      expect(recorded).toEqual(applied);
    }
    expect(listSynthesizedStacks(mixed)).toHaveLength(3);
    expect(namesRecorded).toBeGreaterThan(0);
  });
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

describe('a record is used only for the bytes it was made from', () => {
  const service = 'https://secrets.example.com:8200';

  test('the same file: the record; an edited file, another stack\'s record, or a malformed one: none', () => {
    const outdir = tempDir('prod');
    synthProd(outdir);
    const stackDir = join(outdir, 'stacks', 'prod');
    const file = join(stackDir, 'cdk.tf.json');
    const recordFile = join(stackDir, DIGEST_RECORD_FILE);
    expect(readRecordedDigest(stackDir)?.digestFor(service)).toBe(digestOfDesired(loadDesired(outdir, 'prod'), service));

    // One byte of the file changed, its size the same (a hand edit of a field): the record no longer applies.
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, original.replace('"logins"', '"LOGINS"'));
    expect(readFileSync(file).length).toBe(Buffer.byteLength(original));
    expect(readRecordedDigest(stackDir)).toBeUndefined();
    writeFileSync(file, original);
    expect(readRecordedDigest(stackDir)).toBeDefined();

    // Another synth's record (the file of a changed description) beside this file: not used.
    const other = tempDir('prod-other');
    synthProd(other, 'logins, described anew');
    const ours = readFileSync(recordFile);
    copyFileSync(join(other, 'stacks', 'prod', DIGEST_RECORD_FILE), recordFile);
    expect(readRecordedDigest(stackDir)).toBeUndefined();

    // Malformed records, and none at all.
    const record = JSON.parse(ours.toString('utf8')) as Record<string, Record<string, unknown>>;
    const malformed = [
      'not json',
      JSON.stringify({ ...record, version: 2 }),
      JSON.stringify({ ...record, before: { ...record.before, chain: 'zz' } }),
      JSON.stringify({ ...record, before: { ...record.before, hashedBytes: 63 } }),
      JSON.stringify({ ...record, before: { ...record.before, pending: Buffer.alloc(64).toString('base64') } }),
      JSON.stringify({ ...record, file: { ...record.file, sha256: 'x' } }),
      JSON.stringify({ ...record, connection: { construct: 'prod/service' } }),
      JSON.stringify({ ...record, file: { ...record.file, written: { dev: 1 } } }),
      JSON.stringify({ ...record, objects: -1 }),
      JSON.stringify({ ...record, objects: '3' }),
    ];
    for (const text of malformed) {
      writeFileSync(recordFile, text);
      expect(readRecordedDigest(stackDir)).toBeUndefined();
    }
    // A record of a version before `objects`: used, without them (a plan then loads the stack to count them).
    const { objects: _objects, ...earlier } = record;
    writeFileSync(recordFile, JSON.stringify(earlier));
    expect(readRecordedDigest(stackDir)?.objects).toBeUndefined();
    expect(readRecordedDigest(stackDir)?.digestFor(service)).toBe(digestOfDesired(loadDesired(outdir, 'prod'), service));
    rmSync(recordFile);
    expect(readRecordedDigest(stackDir)).toBeUndefined();
    writeFileSync(recordFile, ours);
    expect(readRecordedDigest(stackDir)?.digestFor(service)).toBe(digestOfDesired(loadDesired(outdir, 'prod'), service));
  });

  test('the bytes are hashed again only when the file was written (or touched) since synth', () => {
    const outdir = tempDir('identity');
    synthProd(outdir);
    const stackDir = join(outdir, 'stacks', 'prod');
    const file = join(stackDir, 'cdk.tf.json');
    const recordFile = join(stackDir, DIGEST_RECORD_FILE);
    const record = JSON.parse(readFileSync(recordFile, 'utf8')) as { file: { sha256: string; written?: Record<string, string> } };
    const stat = statSync(file, { bigint: true });
    expect(record.file.written).toEqual({ dev: String(stat.dev), ino: String(stat.ino), mtimeNs: String(stat.mtimeNs), ctimeNs: String(stat.ctimeNs) });
    // The file as synth left it: its bytes are not read, so a record whose hash was altered still counts (what
    // the record says is trusted as long as nothing wrote to the file; an altered hash state would show).
    writeFileSync(recordFile, JSON.stringify({ ...record, file: { ...record.file, sha256: '0'.repeat(64) } }));
    expect(readRecordedDigest(stackDir)).toBeDefined();
    // Touched (its times changed, bytes the same): the bytes are hashed, and do not match the altered hash...
    utimesSync(file, new Date(), new Date(Date.now() - 60_000));
    expect(readRecordedDigest(stackDir)).toBeUndefined();
    // ...but match the true one: the record counts again.
    writeFileSync(recordFile, JSON.stringify(record));
    expect(readRecordedDigest(stackDir)?.digestFor('https://x')).toBe(digestOfDesired(loadDesired(outdir, 'prod'), 'https://x'));
  });

  test('change detection gives the same answer with the record, without it, and with an edited file beside it', async () => {
    const outdir = tempDir('detect');
    synthProd(outdir);
    const stateDir = tempDir('detect-state');
    const options = { outdir, statePath: join(stateDir, '{stack}.state.json'), env: {}, cwd: stateDir };
    const withRecord = await detectChangedStacks(options);
    rmSync(join(outdir, 'stacks', 'prod', DIGEST_RECORD_FILE));
    const withoutRecord = await detectChangedStacks(options);
    expect(withRecord).toEqual(withoutRecord);
    // A file whose spec is no longer one: the full read reports it (the record of the valid file is not used).
    synthProd(outdir);
    const file = join(outdir, 'stacks', 'prod', 'cdk.tf.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"version": 1\b/g, '"version": 9'));
    const broken = await detectChangedStacks(options);
    expect(broken.ok ? 'detected' : broken.error.code).toBe('desired_invalid');
  });

  test('no secret value in a record; none for a stack synthesized without validation, and an earlier one is removed', () => {
    process.env.RECORD_PASSWORD = PASSWORD;
    try {
      const outdir = tempDir('skip');
      synthProd(outdir);
      const recordFile = join(outdir, 'stacks', 'prod', DIGEST_RECORD_FILE);
      expect(readFileSync(recordFile, 'utf8')).not.toContain(PASSWORD);
      expect(readFileSync(recordFile, 'utf8')).toContain('"tokenEnv": "PROD_TOKEN"');
      synthProd(outdir, 'logins', { skipValidation: true, invalid: true });
      expect(readdirSync(join(outdir, 'stacks', 'prod'))).toEqual(['cdk.tf.json']);
    } finally {
      delete process.env.RECORD_PASSWORD;
    }
  });
});
