/**
 * Change detection through the real binary, on PostgreSQL state and two dev servers (issue 35): an app of three
 * stacks (`base` on server A; `app`, which depends on base, and `other` on server B, each stack's
 * ServiceConnection naming its server). Every complete apply records the digest of the desired state in state;
 * `secretform stacks --changed` then names the stacks a code change touches (its own change, a dependency's, a
 * new stack), in text, JSON and GitHub matrix form, with no request reaching either server (counted at the
 * servers) and one query for all stacks (counted in the database's statement log); `plan --changed` reads the
 * changed stacks only (requests counted at the servers) and lists the others as unchanged in every format; a
 * targeted apply records no digest; a state without one (an older version's) counts as changed and says why.
 * The digest record synth writes beside each stack's file is what `stacks` reads when the file is the one it
 * describes; a missing, stale or altered record, or a file edited after synth, is read in full (never a wrong
 * "unchanged").
 */
import { copyFileSync, cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { AuthMount, SecretsMount, ServiceConnection, UserpassUser } from '../../src/constructs';
import { SecretValue } from '../../src/secret-value';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { describeWithPostgres, PG_PASSWORD, startPostgres, type PgCluster } from '../support/postgres';
import { cliEnv, runCli, transcript, type CliResult } from './cli-harness';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(120_000);

const PASSWORD = 'changed-stacks-user-password-8e1f';
const TOKEN_A = 'changed-a-root-token';
const TOKEN_B = 'changed-b-root-token';
const SCHEMA = 'changed_e2e';

let pg: PgCluster | undefined;
let serverA: DevServer;
let serverB: DevServer;
let project: string;

/** How the code differs from the first version: what a pull request would change. */
interface Variant {
  otherDescription?: string;
  baseDescription?: string;
  /** A second mount in `other` (for the targeted apply). */
  otherExtraMount?: boolean;
  /** A fourth stack, `extra`, on server A. */
  extraStack?: boolean;
}

/** Each variant synthesized once, in process, into an outdir of its own (used with --no-synth --output). */
const outdirs = new Map<string, string>();

function synthesize(name: string, variant: Variant): void {
  const outdir = tempDir(`secretform-changed-${name}-`);
  const app = new App({ outdir });
  const connect = (stack: TerraformStack, server: DevServer, tokenEnv: string) => new ServiceConnection(stack, 'service', { address: server.url, tokenEnv });
  const base = new TerraformStack(app, 'base');
  connect(base, serverA, 'CHANGED_A_TOKEN');
  new SecretsMount(base, 'kv', { path: 'base-kv', type: 'kv', options: { version: '2' }, description: variant.baseDescription ?? 'shared' });
  const auth = new AuthMount(base, 'users', { path: 'base-users', type: 'userpass' });
  new UserpassUser(base, 'ci', { mount: auth, username: 'ci', password: SecretValue.fromEnv('CHANGED_PASSWORD'), tokenPolicies: ['default'] });
  const appStack = new TerraformStack(app, 'app');
  appStack.addDependency(base);
  connect(appStack, serverB, 'CHANGED_B_TOKEN');
  new SecretsMount(appStack, 'kv', { path: 'app-kv', type: 'kv', options: { version: '2' } });
  const other = new TerraformStack(app, 'other');
  connect(other, serverB, 'CHANGED_B_TOKEN');
  new SecretsMount(other, 'kv', { path: 'other-kv', type: 'kv', options: { version: '2' }, description: variant.otherDescription ?? 'other' });
  if (variant.otherExtraMount) new SecretsMount(other, 'more', { path: 'other-more', type: 'kv', options: { version: '2' } });
  if (variant.extraStack) {
    const extra = new TerraformStack(app, 'extra');
    connect(extra, serverA, 'CHANGED_A_TOKEN');
    new SecretsMount(extra, 'kv', { path: 'extra-kv', type: 'kv', options: { version: '2' } });
  }
  app.synth();
  outdirs.set(name, outdir);
}

function env(): NodeJS.ProcessEnv {
  // SERVICE_ADDR points at nothing: every stack talks to its ServiceConnection's server.
  return cliEnv({ url: 'http://127.0.0.1:9', rootToken: 'unused' }, {
    CHANGED_A_TOKEN: TOKEN_A, CHANGED_B_TOKEN: TOKEN_B, CHANGED_PASSWORD: PASSWORD, SECRETFORM_STATE: pg!.url(SCHEMA),
  });
}

function run(args: string[], variant: string): Promise<CliResult> {
  return runCli([...args, '--no-synth', '--output', outdirs.get(variant)!], project, env());
}

/** Runs `work` and fails when either server handled a request meanwhile. */
async function withoutRequests<T>(work: () => Promise<T>): Promise<T> {
  const before = [serverA.requestCount, serverB.requestCount];
  const result = await work();
  expect([serverA.requestCount, serverB.requestCount]).toEqual(before);
  return result;
}

interface ListedStack { stack: string; service: string; depends_on: string[]; changed: boolean; reason?: string; reason_code?: string; wave: number }

async function listed(variant: string, extra: string[] = []): Promise<ListedStack[]> {
  const result = await withoutRequests(() => run(['stacks', '--format', 'json', ...extra], variant));
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { stacks: ListedStack[] }).stacks;
}

/** The statements the database ran for the state role since `mark` (its log, every statement logged). */
function statementsSince(mark: number): string[] {
  const log = readFileSync(serverLog!, 'utf8').slice(mark);
  // A record starts with its time stamp; a statement's further lines start with a tab.
  const records = log.split(/\n(?=\d{4}-\d\d-\d\d )/);
  return records.filter((record) => /LOG: {2}(statement|execute [^:]*):/.test(record));
}

let serverLog: string | undefined;

describeWithPostgres('change detection on PostgreSQL state and two dev servers', () => {
  beforeAll(async () => {
    pg = await startPostgres();
    serverA = await startDevServer({ port: 0, rootToken: TOKEN_A });
    serverB = await startDevServer({ port: 0, rootToken: TOKEN_B });
    project = tempDir('secretform-changed-project-');
    synthesize('v0', {});
    synthesize('other-changed', { otherDescription: 'other, described anew' });
    synthesize('base-changed', { baseDescription: 'shared, described anew' });
    synthesize('new-stack', { extraStack: true });
    synthesize('other-two-changes', { otherDescription: 'targeted', otherExtraMount: true });
    // Every statement of the state's role goes to the server's log: the test counts the queries of `stacks`.
    const admin = await pg.admin();
    const data = (await admin.query<{ setting: string }>("SELECT current_setting('data_directory') AS setting")).rows[0].setting;
    await admin.query("ALTER ROLE sf_team SET log_statement = 'all'");
    await admin.end();
    serverLog = join(dirname(data), 'server.log');
  }, 120_000);

  afterAll(async () => {
    await serverA?.close();
    await serverB?.close();
    pg?.stop();
  });

  test('every complete apply records the digest of the desired state (references only, no value)', async () => {
    const applied = await run(['apply', '--stack', '*', '--auto-approve'], 'v0');
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const admin = await pg!.admin();
    try {
      const rows = await admin.query<{ stack: string; digest: string; serial: string; state_serial: string }>(
        `SELECT d.stack, d.digest, d.serial, s.serial AS state_serial FROM ${SCHEMA}.applied_digests d JOIN ${SCHEMA}.states s USING (stack) ORDER BY d.stack`,
      );
      expect(rows.rows.map((row) => row.stack)).toEqual(['app', 'base', 'other']);
      for (const row of rows.rows) {
        expect(row.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
        // Recorded with the apply's last write: it describes the state as that apply left it.
        expect(row.serial).toBe(row.state_serial);
      }
    } finally {
      await admin.end();
    }
    expect(pg!.dump()).not.toContain(PASSWORD);
    // Right after the apply, nothing is changed.
    expect((await listed('v0')).map((stack) => [stack.stack, stack.changed])).toEqual([['base', false], ['app', false], ['other', false]]);
  });

  test('stacks lists each stack with its service, its dependencies and no token, reading one query for all stacks', async () => {
    expect(existsSync(serverLog!)).toBe(true);
    const mark = readFileSync(serverLog!, 'utf8').length;
    const stacks = await listed('v0');
    expect(stacks).toEqual([
      { stack: 'base', service: serverA.url, depends_on: [], changed: false, wave: 0 },
      { stack: 'app', service: serverB.url, depends_on: ['base'], changed: false, wave: 1 },
      { stack: 'other', service: serverB.url, depends_on: [], changed: false, wave: 0 },
    ]);
    const statements = statementsSince(mark);
    // One query reads the serial, service and digest of every stack; the resource rows are never read.
    expect(statements.filter((line) => line.includes('applied_digests') && !line.includes('CREATE'))).toHaveLength(1);
    expect(statements.filter((line) => /\.resources\b/.test(line))).toEqual([]);
    const text = await withoutRequests(() => run(['stacks'], 'v0'));
    expect(text.stdout).toMatch(/^STACK +SERVICE +DEPENDS ON +STATUS$/m);
    expect(text.stdout).toContain('0 of 3 stacks changed.');
    for (const output of [text.stdout, text.stderr]) {
      expect(output).not.toContain(TOKEN_A);
      expect(output).not.toContain(TOKEN_B);
      expect(output).not.toContain(PG_PASSWORD);
    }
  });

  test('a code change: stacks --changed names that stack only, in every format, with no request', async () => {
    const json = await listed('other-changed', ['--changed']);
    expect(json).toEqual([{ stack: 'other', service: serverB.url, depends_on: [], changed: true, reason: 'code changed since its last apply', reason_code: 'code_changed', wave: 0 }]);
    const matrix = await withoutRequests(() => run(['stacks', '--changed', '--format', 'github-matrix'], 'other-changed'));
    expect(matrix.stdout).toBe('{"include":[{"stack":"other","wave":0}]}\n');
    const text = await withoutRequests(() => run(['stacks', '--changed'], 'other-changed'));
    expect(text.stdout).toMatch(/^other +http:\/\/127\.0\.0\.1:\d+ +- +changed: code changed since its last apply$/m);
    expect(text.stdout).not.toMatch(/^(base|app) /m);
    expect(text.stdout).toContain('1 of 1 stack changed.');
  });

  test("a dependency's change: the stacks that depend on it are changed too, one wave later", async () => {
    const json = await listed('base-changed', ['--changed']);
    expect(json.map((stack) => [stack.stack, stack.reason_code, stack.reason, stack.wave])).toEqual([
      ['base', 'code_changed', 'code changed since its last apply', 0],
      ['app', 'dependency_changed', 'depends on changed stack base', 1],
    ]);
    const matrix = await withoutRequests(() => run(['stacks', '--changed', '--format', 'github-matrix'], 'base-changed'));
    expect(JSON.parse(matrix.stdout)).toEqual({ include: [{ stack: 'base', wave: 0 }, { stack: 'app', wave: 1 }] });
    const text = await withoutRequests(() => run(['stacks', '--changed'], 'base-changed'));
    expect(text.stdout).toMatch(/^app +\S+ +base +changed: depends on changed stack base$/m);
    // --stack narrows the list; the dependency's change still counts.
    expect((await listed('base-changed', ['--changed', '--stack', 'app'])).map((stack) => [stack.stack, stack.wave])).toEqual([['app', 0]]);
  });

  test('a new stack has no state yet', async () => {
    const json = await listed('new-stack', ['--changed']);
    expect(json).toEqual([{ stack: 'extra', service: serverA.url, depends_on: [], changed: true, reason: 'no state yet (never applied)', reason_code: 'no_state', wave: 0 }]);
    const matrix = await withoutRequests(() => run(['stacks', '--changed', '--format', 'github-matrix'], 'new-stack'));
    expect(matrix.stdout).toBe('{"include":[{"stack":"extra","wave":0}]}\n');
  });

  test('synth writes a digest record per stack; stacks uses it only for the file it describes, else reads the file', async () => {
    const v0 = outdirs.get('v0')!;
    for (const stack of ['base', 'app', 'other']) expect(existsSync(join(v0, 'stacks', stack, 'secretform-digest.json'))).toBe(true);
    /** A copy of a variant's output, changed by `edit`, run as the variant `name`. */
    const copyOf = (variant: string, name: string, edit: (outdir: string) => void) => {
      const outdir = tempDir(`secretform-changed-${name}-`);
      cpSync(outdirs.get(variant)!, outdir, { recursive: true });
      edit(outdir);
      outdirs.set(name, outdir);
    };
    const record = (outdir: string, stack: string) => join(outdir, 'stacks', stack, 'secretform-digest.json');
    const changedOnes = async (variant: string) => (await listed(variant, ['--changed'])).map((stack) => [stack.stack, stack.reason_code]);

    // The record is what is read when the file is the one it describes: a record whose hash state was altered
    // (the file untouched) gives another digest, so the stack shows as changed.
    copyOf('v0', 'altered-record', (outdir) => {
      const altered = JSON.parse(readFileSync(record(outdir, 'other'), 'utf8')) as { before: { chain: string } };
      altered.before.chain = `${altered.before.chain.slice(0, 63)}${altered.before.chain.endsWith('0') ? '1' : '0'}`;
      writeFileSync(record(outdir, 'other'), JSON.stringify(altered));
    });
    expect(await changedOnes('altered-record')).toEqual([['other', 'code_changed']]);

    // No record (an output of an older version): every file read in full, the same answers.
    copyOf('v0', 'no-records', (outdir) => {
      for (const stack of ['base', 'app', 'other']) rmSync(record(outdir, stack));
    });
    expect(await changedOnes('no-records')).toEqual([]);
    copyOf('base-changed', 'base-changed-no-records', (outdir) => {
      for (const stack of ['base', 'app', 'other']) rmSync(record(outdir, stack));
    });
    expect(await changedOnes('base-changed-no-records')).toEqual([['base', 'code_changed'], ['app', 'dependency_changed']]);

    // Never a wrong "unchanged": the applied version's records beside changed files (a stale record, or a file
    // edited by hand after synth) are not used; the change is found from the file.
    copyOf('other-changed', 'stale-record', (outdir) => copyFileSync(record(v0, 'other'), record(outdir, 'other')));
    expect(await changedOnes('stale-record')).toEqual([['other', 'code_changed']]);
    copyOf('v0', 'edited-by-hand', (outdir) => {
      const file = join(outdir, 'stacks', 'base', 'cdk.tf.json');
      const text = readFileSync(file, 'utf8');
      expect(text).toContain('"description": "shared"');
      writeFileSync(file, text.replace('"description": "shared"', '"description": "SHARED"'));
    });
    expect(await changedOnes('edited-by-hand')).toEqual([['base', 'code_changed'], ['app', 'dependency_changed']]);
  });

  test('plan --changed reads the changed stacks only and lists the others as unchanged in every format', async () => {
    const beforeA = serverA.requestCount;
    const beforeB = serverB.requestCount;
    const json = await run(['plan', '--changed', '--format', 'json'], 'other-changed');
    expect(json.code).toBe(0);
    const changedRequests = serverB.requestCount - beforeB;
    const report = JSON.parse(json.stdout) as { stacks: { stack: string; summary: { update: number } }[]; unchanged: { stack: string; status: string }[] };
    expect(report.stacks.map((stack) => [stack.stack, stack.summary.update])).toEqual([['other', 1]]);
    expect(report.unchanged).toEqual([
      { stack: 'base', status: 'unchanged', message: 'unchanged since its last apply, not read' },
      { stack: 'app', status: 'unchanged', message: 'unchanged since its last apply, not read' },
    ]);
    // base lives on A alone: no request there. On B, exactly the requests of a plan of other alone, fewer than
    // those of a plan of app and other.
    expect(serverA.requestCount).toBe(beforeA);
    expect(changedRequests).toBeGreaterThan(0);
    const alone = serverB.requestCount;
    expect((await run(['plan', '--stack', 'other'], 'other-changed')).code).toBe(0);
    expect(serverB.requestCount - alone).toBe(changedRequests);
    const both = serverB.requestCount;
    expect((await run(['plan', '--stack', 'other', '--stack', 'app'], 'other-changed')).code).toBe(0);
    expect(serverB.requestCount - both).toBeGreaterThan(changedRequests);

    const text = await run(['plan', '--changed'], 'other-changed');
    expect(text.stdout).toMatch(/=== Stack base ===\n\nUnchanged since its last apply, not read \(--changed\)\./);
    expect(text.stdout).toContain('Total over 3 stacks: Plan: 0 to add, 1 to change, 0 to destroy, 0 drifted, 2 stacks unchanged since their last apply (not read).');
    const markdown = await run(['plan', '--changed', '--format', 'markdown'], 'other-changed');
    expect(markdown.stdout).toContain('| `base` | — | — | — | — | — | ⏭️ unchanged since its last apply, not read |');
    expect(markdown.stdout).toContain('| `app` | — | — | — | — | — | ⏭️ unchanged since its last apply, not read |');

    // Nothing changed: nothing planned, no request at all.
    const none = await withoutRequests(() => run(['plan', '--changed', '--format', 'json'], 'v0'));
    expect(none.code).toBe(0);
    expect((JSON.parse(none.stdout) as { stacks: unknown[]; unchanged: unknown[] }).stacks).toEqual([]);
  });

  test('a targeted apply records no digest: the stack stays changed until a complete apply', async () => {
    const targeted = await run(['apply', '--stack', 'other', '--target', 'other/more', '--auto-approve'], 'other-two-changes');
    expect(targeted.code).toBe(0);
    const after = await listed('other-two-changes', ['--changed']);
    expect(after.map((stack) => [stack.stack, stack.reason_code])).toEqual([['other', 'state_changed']]);
    expect(after[0].reason).toMatch(/^state written since its last complete apply \(serial \d+, now \d+: /);
    const complete = await run(['apply', '--changed', '--auto-approve'], 'other-two-changes');
    expect(complete.code).toBe(0);
    expect(complete.stdout).toContain('Unchanged since their last apply, not read (--changed): base, app');
    expect(await listed('other-two-changes', ['--changed'])).toEqual([]);
  });

  test('a state without a digest (written by an older version) counts as changed, and says why', async () => {
    const admin = await pg!.admin();
    try {
      await admin.query(`DELETE FROM ${SCHEMA}.applied_digests WHERE stack = 'base'`);
    } finally {
      await admin.end();
    }
    const json = await listed('other-two-changes', ['--changed']);
    expect(json.map((stack) => [stack.stack, stack.reason])).toEqual([
      ['base', 'no digest recorded (state written by an older version; the next complete apply records one)'],
      ['app', 'depends on changed stack base'],
    ]);
  });

  test('no output of any run holds the secret value or a token', () => {
    const all = transcript.join('\n');
    for (const secret of [PASSWORD, TOKEN_A, TOKEN_B, PG_PASSWORD]) expect(all).not.toContain(secret);
  });
});
