/**
 * The fan-in of a fleet's CI, through the real binary as separate processes, with two dev servers and the state
 * in one PostgreSQL database: an app of two stacks, `platform` (on one server) and `api` (on the other, depending
 * on platform; it sorts first, so only the dependency puts it second). Two `plan --stack X --out` jobs started at
 * once both finish, both in flight at their servers at the same moment (the first runs on a fresh schema: neither waits for the other's
 * table creation or lock); `show` of both files is the report one `plan --out` over both stacks gives; `apply` of
 * both runs platform before api whatever the files' order, and two applies of different stacks at once never
 * wait; a tampered file, the same stack in two files, a file of another app and a file planned against another
 * state are refused before any request, with nothing written on either server or in the database. Then the
 * commands of examples/ci/secretform-fleet.yml, job by job, each job in its own checkout, on one PostgreSQL state
 * (`secretform stacks` included: its matrix is the one the plan jobs run).
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import type { RequestLogEntry } from '../../src/devserver/router';
import { describeWithPostgres, PG_PASSWORD, startPostgres, type PgCluster } from '../support/postgres';
import { cliEnv, ROOT, runCli, transcript, type CliResult } from './cli-harness';
import { loadWorkflow, resolveExpressions, secretformLines, shellWords, type SecretformLine } from '../support/workflow-lines';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(180_000);

const STACKS = ['platform', 'api'] as const;
type Stack = (typeof STACKS)[number];
const TOKENS: Record<Stack, string> = { platform: 'fan-in-platform-root-8d2f', api: 'fan-in-api-root-4b7e' };
const PASSWORD = 'fan-in-user-password-61ac';
/** Each request takes this long at either server, so that a plan of a stack lasts long enough to see overlap. */
const LATENCY_MS = 60;

/**
 * platform: a userpass mount with users, a KV mount; api (depends on platform): the same on its own server.
 * Each stack's ServiceConnection names its server (SF_FAN_<STACK>_ADDR at synth) and token variable.
 */
const APP = `
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
const app = new App();
const stacks = {};
for (const name of ${JSON.stringify(['platform', 'api'])}) {
  const stack = new TerraformStack(app, name);
  stacks[name] = stack;
  new sf.ServiceConnection(stack, 'service', { address: process.env['SF_FAN_' + name.toUpperCase() + '_ADDR'], tokenEnv: name.toUpperCase() + '_SERVICE_TOKEN' });
  const auth = new sf.AuthMount(stack, 'auth', { path: name + '-users', type: 'userpass' });
  for (const user of ['ci', 'ops', 'web', 'batch']) {
    new sf.UserpassUser(stack, user, { mount: auth, username: user, password: sf.SecretValue.fromEnv('SF_FAN_PASSWORD'), tokenPolicies: ['default'] });
  }
  new sf.SecretsMount(stack, 'kv', { path: name + '-apps', type: 'kv', options: { version: '2' } });
}
stacks.api.addDependency(stacks.platform);
app.synth();
`;

/** The same kind of app, elsewhere: one stack `billing`, on the platform server. */
const OTHER_APP = `
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
const app = new App();
const stack = new TerraformStack(app, 'billing');
new sf.ServiceConnection(stack, 'service', { address: process.env.SF_FAN_PLATFORM_ADDR, tokenEnv: 'PLATFORM_SERVICE_TOKEN' });
new sf.SecretsMount(stack, 'kv', { path: 'billing-apps', type: 'kv', options: { version: '2' } });
app.synth();
`;

const servers = {} as Record<Stack, DevServer>;
/** Every request either server answered, in the order they were answered, named by the stack of that server. */
const answered: { stack: Stack; entry: RequestLogEntry }[] = [];
let pg: PgCluster;
let project: string;

function projectOf(app: string, prefix: string): string {
  const dir = tempDir(prefix);
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
  writeFileSync(join(dir, 'main.js'), app);
  return dir;
}

/** Each stack's server and token; SERVICE_ADDR leads nowhere; the state is `schema` of the test's database. */
function env(schema: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const connections: Record<string, string> = { SECRETFORM_SYNTH_ENV: 'SF_FAN_*', SF_FAN_PASSWORD: PASSWORD, SECRETFORM_STATE: pg.url(schema) };
  for (const stack of STACKS) {
    connections[`SF_FAN_${stack.toUpperCase()}_ADDR`] = servers[stack].url;
    connections[`${stack.toUpperCase()}_SERVICE_TOKEN`] = TOKENS[stack];
  }
  return cliEnv({ url: 'http://127.0.0.1:1', rootToken: 'not-the-token-of-any-server' }, { ...connections, ...extra });
}

const writes = () => answered.filter(({ entry }) => entry.method !== 'GET' && entry.method !== 'LIST');
/** The rows of every state table, for "nothing was written in the database" (without pg_dump's comments and its per-dump \\restrict key). */
const database = () => pg.dump().replace(/^(--|\\(un)?restrict ).*$/gm, '');

/** Runs `commands` at the same time, each in its own process. */
const atOnce = (commands: string[][], dir: string, runEnv: NodeJS.ProcessEnv): Promise<CliResult[]> =>
  Promise.all(commands.map((args) => runCli(args, dir, runEnv)));

function expectOk(result: CliResult): void {
  if (result.code !== 0) throw new Error(`exit ${String(result.code)}: ${result.stderr}${result.stdout}`);
}

/**
 * Runs `commands` at once while both servers hold their answers, and says whether each server had a request in
 * flight at the same moment: two runs that waited for each other (a lock, a shared connection) never both reach
 * their server, whatever the load does to when each process starts. Released after 60 s at the latest.
 */
async function bothInFlight(commands: string[][], runEnv: NodeJS.ProcessEnv): Promise<{ results: CliResult[]; together: boolean }> {
  const releases = STACKS.map((stack) => servers[stack].faults.hold());
  const running = atOnce(commands, project, runEnv);
  const deadline = Date.now() + 60_000;
  let together = false;
  while (!together && Date.now() < deadline) {
    together = STACKS.every((stack) => servers[stack].inFlight.current > 0);
    if (!together) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  releases.forEach((release) => release());
  return { results: await running, together };
}

describeWithPostgres('a fleet\'s plan jobs joined: show and apply of several plan files', () => {
  beforeAll(async () => {
    pg = await startPostgres();
    for (const stack of STACKS) {
      const server = await startDevServer({ port: 0, rootToken: TOKENS[stack], latencyMs: LATENCY_MS });
      // Observation only: the log keeps its entries; the test also notes which server answered, in order.
      const log = server.requestLog;
      const push = log.push.bind(log);
      log.push = (...entries: RequestLogEntry[]) => {
        for (const entry of entries) answered.push({ stack, entry });
        return push(...entries);
      };
      servers[stack] = server;
    }
    project = projectOf(APP, 'secretform-fan-in-');
    expectOk(await runCli(['synth'], project, env('fan_in')));
  }, 120_000);

  afterAll(async () => {
    for (const stack of STACKS) await servers[stack]?.close();
    pg?.stop();
  });

  const schema = 'fan_in';
  const sf = (args: string[], extra: Record<string, string | undefined> = {}) => runCli(args, project, env(schema, extra));

  test('two plan jobs at once on a fresh state: both finish, both in flight at their servers at once', async () => {
    const { results: jobs, together } = await bothInFlight(STACKS.map((stack) => ['plan', '--stack', stack, '--no-synth', '--parallelism', '1', '--out', `${stack}.plan`]), env(schema));
    jobs.forEach(expectOk);
    expect(together).toBe(true);
    expect(writes()).toEqual([]);
    // Each file is one stack's plan, and records the stack of the app it depends on.
    const api = JSON.parse(readFileSync(join(project, 'api.plan'), 'utf8'));
    expect([api.stack, api.depends_on]).toEqual(['api', ['platform']]);
    expect(JSON.parse(readFileSync(join(project, 'platform.plan'), 'utf8')).depends_on).toEqual([]);
    // One plan over both stacks, the reference of the report tests below.
    expectOk(await sf(['plan', '--stack', '*', '--no-synth', '--out', 'both.plan']));
  });

  test('show of both files is the report of one plan over both stacks, in every format; one markdown comment', async () => {
    // Times differ (the files were made apart), and the comment's apply line names the files given.
    const masked = (text: string) => text.replace(/\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?Z)?( UTC)?/g, 'TIME').replace(/secretform apply [\w. -]+\.plan/g, 'secretform apply FILES');
    for (const format of ['text', 'markdown', 'json']) {
      // The files in the order a shell's `*.plan` gives them: api first, though it depends on platform.
      const joined = await sf(['show', 'api.plan', 'platform.plan', '--format', format]);
      const one = await sf(['show', 'both.plan', '--format', format]);
      expectOk(joined);
      expectOk(one);
      expect(masked(joined.stdout)).toBe(masked(one.stdout));
      expect(joined.stderr).toBe(one.stderr);
      // And the report `plan --out` itself printed over both stacks (nothing was written since the files).
      const planned = await sf(['plan', '--stack', '*', '--no-synth', '--out', `both-${format}.plan`, '--format', format]);
      expectOk(planned);
      expect(masked(joined.stdout)).toBe(masked(planned.stdout));
    }
    const markdown = (await sf(['show', 'api.plan', 'platform.plan', '--format', 'markdown'])).stdout;
    expect(markdown).toContain('over 2 stacks');
    expect(markdown.match(/^### Stack `(\w+)`$/gm)).toEqual(['### Stack `platform`', '### Stack `api`']);
    expect(markdown).toContain('applies on merge with `secretform apply api.plan platform.plan`');
    expect(markdown).not.toContain('secretform: next part');
    const json = JSON.parse((await sf(['show', 'platform.plan', 'api.plan', '--format', 'json'])).stdout);
    expect(json.stacks.map((stack: { stack: string }) => stack.stack)).toEqual(['platform', 'api']);
    expect(json.summary).toEqual(JSON.parse((await sf(['show', 'both.plan', '--format', 'json'])).stdout).summary);
  });

  /** A refused apply: exit 1 with `message`, no request at either server, nothing written in the database. */
  async function expectRefusedBeforeAnyRequest(args: string[], message: string | RegExp, dir = project): Promise<void> {
    const before = database();
    const since = answered.length;
    const refused = await runCli(args, dir, env(schema));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(message);
    expect(answered.slice(since)).toEqual([]);
    expect(database()).toBe(before);
  }

  test('the same stack in two files is refused before any request, naming both files', async () => {
    await expectRefusedBeforeAnyRequest(['apply', 'platform.plan', 'both.plan'], 'stack platform is in platform.plan and in both.plan, so nothing was read or changed');
    const shown = await sf(['show', 'api.plan', 'both.plan']);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain('stack api is in api.plan and in both.plan');
  });

  test('a file of another app, or planned against another state, is refused before any request', async () => {
    const other = projectOf(OTHER_APP, 'secretform-fan-in-other-');
    expectOk(await runCli(['plan', '--out', join(project, 'billing.plan')], other, env(schema)));
    await expectRefusedBeforeAnyRequest(['apply', 'platform.plan', 'billing.plan'], /billing\.plan holds stack billing, which is not a stack of this app \(.*cdktf\.out holds api, platform\): it was made from another app, so nothing was read or changed/);

    expectOk(await sf(['plan', '--stack', 'platform', '--no-synth', '--out', 'elsewhere.plan'], { SECRETFORM_STATE: pg.url('fan_in_elsewhere') }));
    await expectRefusedBeforeAnyRequest(['apply', 'elsewhere.plan', 'api.plan'], /elsewhere\.plan was planned against the state postgres:\/\/.*schema=fan_in_elsewhere for stack platform, but this run's state for it is postgres:\/\/.*schema=fan_in, so nothing was read or changed: apply with the state the plans were made with/);
  });

  test('a tampered file is refused before any request: nothing written on either server or in the database', async () => {
    // The secret reference pointed at another variable, as an attacker with the artifact would.
    const saved = readFileSync(join(project, 'api.plan'), 'utf8');
    expect(saved).toContain('SF_FAN_PASSWORD');
    writeFileSync(join(project, 'tampered.plan'), saved.replaceAll('SF_FAN_PASSWORD', 'SF_FAN_OTHER'));
    await expectRefusedBeforeAnyRequest(['apply', 'platform.plan', 'tampered.plan'], 'the saved plan tampered.plan is refused, so nothing was read or changed: its content does not match its MAC');
  });

  test('apply of both files runs platform, then api (whatever their order), in one set', async () => {
    const since = answered.length;
    const applied = await sf(['apply', 'api.plan', 'platform.plan']);
    expectOk(applied);
    expect(applied.stdout).toContain('Applying the saved plans api.plan, platform.plan (2 stacks: platform, api;');
    const order = answered.slice(since).filter(({ entry }) => entry.method !== 'GET' && entry.method !== 'LIST');
    const stacks = order.map(({ stack }) => stack);
    expect(stacks.filter((stack) => stack === 'platform').length).toBeGreaterThanOrEqual(6);
    expect(stacks.filter((stack) => stack === 'api').length).toBeGreaterThanOrEqual(6);
    expect(stacks.lastIndexOf('platform')).toBeLessThan(stacks.indexOf('api'));
    // Each stack's objects on its own server.
    expect(order.filter(({ stack, entry }) => !entry.path.includes(stack))).toEqual([]);
    const client = await pg.admin();
    try {
      const rows = await client.query<{ stack: string; serial: string }>(`SELECT stack, serial FROM "${schema}".states ORDER BY stack`);
      expect(rows.rows.map((row) => [row.stack, Number(row.serial) > 0])).toEqual([['api', true], ['platform', true]]);
    } finally {
      await client.end();
    }
    const again = await sf(['plan', '--stack', '*', '--no-synth', '--detailed-exitcode']);
    expect(again.code).toBe(0);
  });

  test('two applies of different stacks at once, each of its own file, never wait for each other', async () => {
    expectOk(await sf(['plan', '--stack', 'platform', '--no-synth', '--out', 'platform-2.plan']));
    expectOk(await sf(['plan', '--stack', 'api', '--no-synth', '--out', 'api-2.plan']));
    // --lock-timeout 0s: a lock the other run held would fail this one at once, naming the holder; each reads
    // its stack under its lock, so both servers see a request at once only when both runs hold their locks.
    const { results: runs, together } = await bothInFlight(STACKS.map((stack) => ['apply', `${stack}-2.plan`, '--lock-timeout', '0s', '--parallelism', '1']), env(schema));
    runs.forEach(expectOk);
    expect(together).toBe(true);
  });

  test('the fleet workflow\'s commands, job by job in separate checkouts: synth, a plan job per stack at once, one comment, apply on merge', async () => {
    const workflowFile = 'secretform-fleet.yml';
    const workflow = loadWorkflow(workflowFile);
    const secrets: Record<string, string> = {
      SERVICE_ADDR: 'http://127.0.0.1:1',
      SERVICE_TOKEN: 'not-the-token-of-any-server',
      SECRETFORM_STATE: pg.url('fan_in_workflow'),
      SECRETFORM_STATE_KEY: 'fleet-state-key',
      APP_ADMIN_PASSWORD: 'unused-by-this-app',
    };
    // What the repository's secrets would add for this app: each stack's server and token, its password.
    const appEnv: Record<string, string> = { SECRETFORM_SYNTH_ENV: 'SF_FAN_*', SF_FAN_PASSWORD: PASSWORD };
    for (const stack of STACKS) {
      appEnv[`SF_FAN_${stack.toUpperCase()}_ADDR`] = servers[stack].url;
      appEnv[`${stack.toUpperCase()}_SERVICE_TOKEN`] = TOKENS[stack];
    }
    /** A word with `*` expanded as bash would in `dir` (sorted; `plans/*.plan` only: one directory, one star). */
    const expand = (word: string, dir: string): string[] => {
      if (!word.includes('*')) return [word];
      const pattern = new RegExp(`^${basename(word).split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
      const found = readdirSync(join(dir, dirname(word))).filter((name) => pattern.test(name)).sort();
      return found.length === 0 ? [word] : found.map((name) => join(dirname(word), name));
    };
    const run = async (line: SecretformLine, dir: string, matrix?: Record<string, string>): Promise<CliResult> => {
      const stepEnv: Record<string, string> = {};
      for (const [name, value] of Object.entries(line.env)) stepEnv[name] = resolveExpressions(String(value), { secrets, env: stepEnv, matrix });
      const words = shellWords(line.line, stepEnv).flatMap((word) => expand(word, dir));
      const result = await runCli(words.slice(2), dir, { PATH: process.env.PATH, HOME: process.env.HOME, ...stepEnv, ...appEnv });
      if (result.code !== 0) throw new Error(`${line.job} / ${line.step}: \`${line.line}\` exited ${String(result.code)}:\n${result.stderr}`);
      return result;
    };
    const lines = secretformLines(workflowFile);
    const linesOf = (job: string) => lines.filter((line) => line.job === job);
    const checkout = () => projectOf(APP, 'secretform-fleet-job-');

    // Job 1: synthesize once, list the changed stacks as the matrix, keep cdktf.out.
    const stacksRun = workflow.jobs.stacks.steps.map((step) => step.run ?? '').join('\n');
    expect(stacksRun).toContain('npx secretform stacks --changed --format github-matrix');
    expect(linesOf('stacks').map((line) => line.line)).toEqual(['npx secretform synth']);
    const first = checkout();
    await run(linesOf('stacks')[0], first);
    // The matrix as the job's step computes it, with the job's environment (state only, no service).
    const listed = await run({ ...linesOf('stacks')[0], line: 'npx secretform stacks --changed --format github-matrix' }, first);
    const { include } = JSON.parse(listed.stdout) as { include: { stack: string; wave: number }[] };
    expect(include.map((entry) => entry.stack).sort()).toEqual([...STACKS].sort());
    const matrix = include.map((entry) => ({ stack: entry.stack }));

    // Job 2: one job per stack, all at once, each on job 1's synth output; each uploads its plan file.
    const comment = checkout();
    const merge = checkout();
    await Promise.all(matrix.map(async (entry) => {
      const dir = checkout();
      cpSync(join(first, 'cdktf.out'), join(dir, 'cdktf.out'), { recursive: true });
      for (const line of linesOf('plan')) await run(line, dir, entry);
      for (const job of [comment, merge]) {
        mkdirSync(join(job, 'plans'), { recursive: true });
        cpSync(join(dir, `${entry.stack}.plan`), join(job, 'plans', `${entry.stack}.plan`));
      }
    }));

    // Job 3: every plan file as one comment, with only the key to check them (no service, no token, no state).
    for (const line of linesOf('comment')) await run(line, comment);
    const markdown = readFileSync(join(comment, 'secretform-plan.md'), 'utf8');
    expect(markdown).toContain('over 2 stacks');
    expect(markdown.match(/^### Stack `(\w+)`$/gm)).toEqual(['### Stack `platform`', '### Stack `api`']);

    // On merge: synthesize the merged code, show, and apply the downloaded files as one set.
    const writesBefore = writes().length;
    for (const line of linesOf('apply')) await run(line, merge);
    expect(writes().length).toBeGreaterThan(writesBefore);
    const client = await pg.admin();
    try {
      const rows = await client.query<{ stack: string; serial: string }>('SELECT stack, serial FROM "fan_in_workflow".states ORDER BY stack');
      expect(rows.rows.map((row) => [row.stack, Number(row.serial) > 0])).toEqual([['api', true], ['platform', true]]);
    } finally {
      await client.end();
    }
  });

  test('no secret value, token or database password in any output or plan file', () => {
    const files = ['platform.plan', 'api.plan', 'both.plan'].map((file) => readFileSync(join(project, file), 'utf8'));
    for (const text of [...transcript, ...files]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(PG_PASSWORD);
      for (const token of Object.values(TOKENS)) expect(text).not.toContain(token);
    }
  });
});
