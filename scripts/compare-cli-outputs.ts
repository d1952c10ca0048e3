/**
 * Runs one fixed list of failing and succeeding commands with two builds of the CLI (each a checkout holding
 * `bin/secretform.js`, a built `dist/` and `node_modules/`) and compares what they print and their exit codes, so
 * a change meant to keep the CLI's words (a refactoring of its failure plumbing, say) can show it did:
 *
 *   npx tsx scripts/compare-cli-outputs.ts REFERENCE_ROOT CANDIDATE_ROOT [--keep DIR]
 *
 * Each build runs the whole list from scratch: its own projects (a one-stack app, a two-stack app, an app whose
 * stack has a ServiceConnection) and its own dev servers. What differs between two runs and is not the CLI's doing
 * is masked before comparing: the project directories, the servers' addresses, times, durations, ids. Prints a
 * diff per command that differs, then the number of commands, bytes and differences; exits 1 when any differs.
 * `--keep DIR` writes both transcripts there.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startDevServer, type DevServer } from '../src/devserver/server';

const ROOT_TOKEN = 'compare-root-token';

interface Step {
  name: string;
  /** The project to run in: one stack (e2e), two stacks (blue, green), or one with a ServiceConnection (conn). */
  project: 'one' | 'two' | 'conn';
  args: string[];
  /** Environment changes for this command (undefined removes a variable). */
  env?: Record<string, string | undefined> | ((world: World) => Record<string, string | undefined>);
  /** Done before the command: files written or damaged. */
  before?: (world: World) => void;
}

interface World {
  dirs: Record<Step['project'], string>;
  servers: DevServer[];
}

const app = (root: string, body: string): string => `
const { App, TerraformStack } = require(${JSON.stringify(join(root, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(root, 'dist'))});
const app = new App();
${body}
app.synth();
`;

const ONE_STACK = `
const stack = new TerraformStack(app, 'e2e');
const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
new sf.UserpassUser(stack, 'alice', { mount: userpass, username: 'alice', password: sf.SecretValue.fromFile('pw.txt'), tokenTtl: process.env.SF_CMP_TTL || '1h', tokenPolicies: ['default'] });
new sf.SecretsMount(stack, 'kv', { path: 'apps', type: 'kv', options: { version: '2' } });
`;

const TWO_STACKS = `
for (const name of ['blue', 'green']) {
  const stack = new TerraformStack(app, name);
  const userpass = new sf.AuthMount(stack, 'userpass', { path: name + '-users', type: 'userpass' });
  new sf.UserpassUser(stack, 'alice', { mount: userpass, username: 'alice', password: sf.SecretValue.fromFile('pw.txt'), tokenTtl: process.env.SF_CMP_TTL || '1h', tokenPolicies: ['default'] });
  new sf.SecretsMount(stack, 'kv', { path: name + '-apps', type: 'kv', options: { version: '2' }, protect: name === 'green' && process.env.SF_CMP_PROTECT === 'yes' });
}
`;

const CONNECTED = `
const stack = new TerraformStack(app, 'conn');
new sf.ServiceConnection(stack, 'service', { address: process.env.SF_CMP_ADDR, tokenEnv: 'CONN_TOKEN' });
new sf.SecretsMount(stack, 'kv', { path: 'conn-apps', type: 'kv', options: { version: '2' } });
`;

const corrupt = (file: string) => (world: World) => writeFileSync(join(world.dirs.two, file), '{ not json');
const write = (project: Step['project'], file: string, text: string) => (world: World) => {
  mkdirSync(join(world.dirs[project], file, '..'), { recursive: true });
  writeFileSync(join(world.dirs[project], file), text);
};
const remove = (project: Step['project'], file: string) => (world: World) => rmSync(join(world.dirs[project], file), { force: true });
/** A lock held by a process that is alive on this host (this script), as a command that runs still holds it. */
const liveLock = (world: World) =>
  writeFileSync(join(world.dirs.one, '.secretform/e2e.state.json.lock'), `${JSON.stringify({ id: 'held', pid: process.pid, host: hostname(), started_at: '2026-01-01T00:00:00.000Z', command: 'secretform apply' })}\n`);
/** Points the one-stack project's SERVICE_ADDR at the second server: its state records the first. */
const otherServer = (world: World) => ({ SERVICE_ADDR: world.servers[1].url });

/** Every command whose --help (its Environment section included) is compared; '' is the program's own. */
const HELP_COMMANDS = [
  '',
  'synth',
  'plan',
  'apply',
  'destroy',
  'show',
  'import',
  'generate',
  'state',
  'state list',
  'state show',
  'state rm',
  'state mv',
  'state history',
  'state restore',
  'state pull',
  'state push',
  'force-unlock',
  'drift',
  'drift ack',
  'drift unack',
  'drift history',
  'graph',
  'stacks',
  'action',
  'exec',
  'dev-server',
  'version',
];

const STEPS: Step[] = [
  // Every command's --help (its Environment section included).
  ...HELP_COMMANDS.map((command): Step => ({ name: `${command}${command ? ' ' : ''}--help`, project: 'one', args: [...command.split(' ').filter(Boolean), '--help'] })),
  // Usage errors: commander's own, and the commands' flag checks.
  { name: 'no arguments', project: 'one', args: [] },
  { name: 'unknown command', project: 'one', args: ['bogus'] },
  { name: 'unknown option', project: 'one', args: ['plan', '--bogus'] },
  { name: 'plan --parallelism 0', project: 'one', args: ['plan', '--parallelism', '0'] },
  { name: 'plan --format xml', project: 'one', args: ['plan', '--format', 'xml'] },
  { name: 'plan --out empty', project: 'one', args: ['plan', '--out', ' '] },
  { name: 'plan --app with --no-synth', project: 'one', args: ['plan', '--app', 'x', '--no-synth'] },
  { name: 'plan --policy-timeout 0', project: 'one', args: ['plan', '--policy', 'recommended', '--policy-timeout', '0'] },
  { name: 'plan --lock-timeout bad', project: 'one', args: ['plan', '--lock-timeout', 'soon'] },
  { name: 'apply without approval', project: 'one', args: ['apply'] },
  { name: 'destroy without approval, targets', project: 'one', args: ['destroy', '--stack', 'e2e', '--target', 'e2e/kv'] },
  { name: 'import without id', project: 'one', args: ['import', 'e2e/kv'] },
  { name: 'import --all with address', project: 'one', args: ['import', '--all', 'e2e/kv', 'x'] },
  { name: 'action unknown operation', project: 'one', args: ['action', 'nope', 'e2e/kv'] },
  { name: 'action --format env', project: 'one', args: ['action', 'rotate-root', 'e2e/kv', '--format', 'env'] },
  { name: 'action --stack not the address', project: 'one', args: ['action', 'creds', 'e2e/kv', '--stack', 'other'] },
  { name: 'exec empty command', project: 'one', args: ['exec', 'e2e/kv', '--', ''] },
  { name: 'state restore not a serial', project: 'one', args: ['state', 'restore', 'abc'] },
  { name: 'state list twice --stack', project: 'one', args: ['state', 'list', '--stack', 'a', '--stack', 'b'] },
  { name: 'graph --format png', project: 'one', args: ['graph', '--format', 'png'] },
  { name: 'drift --fail-on without detailed', project: 'one', args: ['drift', '--fail-on', 'any'] },
  { name: 'drift history --format xml', project: 'one', args: ['drift', 'history', '--format', 'xml'] },
  { name: 'drift ack not an address', project: 'one', args: ['drift', 'ack', 'nothing', '--reason', 'why'] },
  { name: 'drift ack --stack not the address', project: 'one', args: ['drift', 'ack', 'e2e/kv', '--reason', 'why', '--stack', 'x'] },
  { name: 'dev-server --port too big', project: 'one', args: ['dev-server', '--port', '99999'] },
  { name: 'generate bad --stack', project: 'one', args: ['generate', '--stack', 'a b'] },
  { name: 'generate without token', project: 'one', args: ['generate'], env: { SERVICE_TOKEN: undefined } },
  { name: 'synth bad app', project: 'one', args: ['synth', '--app', 'node -e "process.exit(3)"'] },
  { name: 'show missing file', project: 'one', args: ['show', 'missing.plan'] },
  { name: 'show --format xml', project: 'one', args: ['show', 'missing.plan', '--format', 'xml'] },
  { name: 'plan without token', project: 'one', args: ['plan'], env: { SERVICE_TOKEN: undefined } },
  // Unknown stacks and addresses.
  { name: 'plan unknown stack', project: 'one', args: ['plan', '--stack', 'nope'] },
  { name: 'state list unknown stack', project: 'one', args: ['state', 'list', '--stack', 'nope'] },
  { name: 'action unknown stack', project: 'one', args: ['action', 'creds', 'nope/x'] },
  { name: 'import pattern stack', project: 'one', args: ['import', 'e2e/kv', 'apps', '--stack', 'e*'] },
  { name: 'state show unknown address', project: 'one', args: ['state', 'show', 'e2e/nope'] },
  { name: 'import unknown address', project: 'one', args: ['import', 'e2e/nope', 'x'] },
  { name: 'import bad id', project: 'one', args: ['import', 'e2e/kv', 'not/the/mount'] },
  { name: 'import absent object', project: 'one', args: ['import', 'e2e/kv', 'sys/mounts/apps'] },
  { name: 'import another id', project: 'one', args: ['import', 'e2e/kv', 'sys/mounts/other'] },
  { name: 'action not in state', project: 'one', args: ['action', 'status', 'e2e/kv'] },
  { name: 'exec not in state', project: 'one', args: ['exec', 'e2e/alice', '--', 'true'] },
  // Successes, and the state the next failures need.
  { name: 'plan', project: 'one', args: ['plan'] },
  { name: 'plan --detailed-exitcode', project: 'one', args: ['plan', '--no-synth', '--detailed-exitcode'] },
  { name: 'plan --out', project: 'one', args: ['plan', '--no-synth', '--out', 'first.plan'] },
  { name: 'show saved plan', project: 'one', args: ['show', 'first.plan', '--format', 'markdown'] },
  { name: 'apply', project: 'one', args: ['apply', '--no-synth', '--auto-approve'] },
  { name: 'apply nothing to do', project: 'one', args: ['apply', '--no-synth', '--auto-approve'] },
  { name: 'state list', project: 'one', args: ['state', 'list'] },
  { name: 'state show', project: 'one', args: ['state', 'show', 'e2e/kv'] },
  { name: 'state history', project: 'one', args: ['state', 'history'] },
  { name: 'graph', project: 'one', args: ['graph', '--no-synth', '--format', 'mermaid'] },
  { name: 'import already managed', project: 'one', args: ['import', '--no-synth', 'e2e/kv', 'sys/mounts/apps'] },
  { name: 'action unsupported operation', project: 'one', args: ['action', '--no-synth', 'rotate-root', 'e2e/kv'] },
  { name: 'action unsupported option', project: 'one', args: ['action', '--no-synth', 'status', 'e2e/kv', '--ttl', '1h'] },
  { name: 'exec type without credentials', project: 'one', args: ['exec', '--no-synth', 'e2e/kv', '--', 'true'] },
  { name: 'drift', project: 'one', args: ['drift', '--no-synth'] },
  { name: 'drift ack not drifted', project: 'one', args: ['drift', 'ack', 'e2e/kv', '--reason', 'why'] },
  { name: 'drift unack not acknowledged', project: 'one', args: ['drift', 'unack', 'e2e/kv'] },
  // The drift history the checks above recorded.
  { name: 'drift history', project: 'one', args: ['drift', 'history'] },
  { name: 'drift history ADDRESS', project: 'one', args: ['drift', 'history', 'e2e/kv'] },
  { name: 'drift history json', project: 'one', args: ['drift', 'history', '--format', 'json', '--since', '2d'] },
  { name: 'drift history --since bad', project: 'one', args: ['drift', 'history', '--since', 'soon'] },
  { name: 'drift history not an address', project: 'one', args: ['drift', 'history', 'nothing'] },
  { name: 'drift history unknown stack', project: 'one', args: ['drift', 'history', '--stack', 'nope'] },
  { name: 'drift history --state empty', project: 'one', args: ['drift', 'history', '--state', ' '] },
  { name: 'drift ack --state empty', project: 'one', args: ['drift', 'ack', 'e2e/kv', '--reason', 'why', '--state', ' '] },
  { name: 'drift unack --stack empty', project: 'one', args: ['drift', 'unack', 'e2e/kv', '--stack', ' '] },
  // Saved plans that are refused.
  { name: 'apply stale saved plan', project: 'one', args: ['apply', 'first.plan'] },
  { name: 'plan --out again', project: 'one', args: ['plan', '--no-synth', '--out', 'second.plan'], env: { SF_CMP_TTL: '2h' } },
  { name: 'plan --out changed', project: 'one', args: ['plan', '--out', 'second.plan'], env: { SF_CMP_TTL: '2h' } },
  { name: 'apply saved plan --target', project: 'one', args: ['apply', 'second.plan', '--target', 'e2e/kv'] },
  { name: 'apply saved plan --stack other', project: 'one', args: ['apply', 'second.plan', '--stack', 'other'] },
  { name: 'apply saved plan', project: 'one', args: ['apply', 'second.plan'] },
  { name: 'apply saved plan again', project: 'one', args: ['apply', 'second.plan'] },
  {
    name: 'apply tampered saved plan', project: 'one', args: ['apply', 'second.plan'],
    before: (world) => {
      const file = join(world.dirs.one, 'second.plan');
      writeFileSync(file, readFileSync(file, 'utf8').replace('"2h"', '"3h"'));
    },
  },
  { name: 'show tampered saved plan', project: 'one', args: ['show', 'second.plan'] },
  { name: 'plan --out with a key', project: 'one', args: ['plan', '--no-synth', '--out', 'keyed.plan'], env: { SECRETFORM_STATE_KEY: 'compare-state-key' } },
  { name: 'show keyed plan', project: 'one', args: ['show', 'keyed.plan'], env: { SECRETFORM_STATE_KEY: 'compare-state-key' } },
  { name: 'apply keyed plan, another key', project: 'one', args: ['apply', 'keyed.plan'], env: { SECRETFORM_STATE_KEY: 'another-key' } },
  // Policies.
  { name: 'plan policy failure', project: 'one', args: ['plan', '--policy', 'recommended'], env: { SF_CMP_TTL: '48h' } },
  { name: 'apply policy failure', project: 'one', args: ['apply', '--no-synth', '--policy', 'recommended', '--auto-approve'], env: { SF_CMP_TTL: '48h' } },
  { name: 'plan policy pack missing', project: 'one', args: ['plan', '--no-synth', '--policy', 'policies/none.cjs'] },
  // Locks, state files, services.
  { name: 'apply lock held', project: 'one', args: ['apply', '--no-synth', '--auto-approve'], before: liveLock },
  { name: 'state rm lock held', project: 'one', args: ['state', 'rm', 'e2e/kv'] },
  { name: 'force-unlock without --force', project: 'one', args: ['force-unlock'] },
  { name: 'force-unlock', project: 'one', args: ['force-unlock', '--force'] },
  { name: 'plan other service', project: 'one', args: ['plan', '--no-synth'], env: otherServer },
  { name: 'state push bad file', project: 'one', args: ['state', 'push', 'bad.json'], before: write('one', 'bad.json', '{"version": 99}') },
  { name: 'plan state corrupt', project: 'one', args: ['plan', '--no-synth'], before: write('one', '.secretform/e2e.state.json', '[]') },
  { name: 'state list state corrupt', project: 'one', args: ['state', 'list'] },
  { name: 'drift state corrupt', project: 'one', args: ['drift', '--no-synth'] },
  { name: 'drift history state corrupt', project: 'one', args: ['drift', 'history'] },
  // A ServiceConnection names its stack in its errors.
  { name: 'connection token unset', project: 'conn', args: ['plan'] },
  { name: 'connection bad address', project: 'conn', args: ['plan'], env: { SF_CMP_ADDR: 'not a url', CONN_TOKEN: 't' } },
  // Two stacks.
  { name: 'two: apply without --stack', project: 'two', args: ['apply', '--auto-approve'] },
  { name: 'two: plan without token', project: 'two', args: ['plan'], env: { SERVICE_TOKEN: undefined } },
  { name: 'two: plan one state shared', project: 'two', args: ['plan', '--no-synth', '--state', 'one.json'] },
  { name: 'two: plan unknown stack', project: 'two', args: ['plan', '--no-synth', '--stack', 'red'] },
  // One request at a time: the progress lines come in one order.
  { name: 'two: apply', project: 'two', args: ['apply', '--no-synth', '--stack', '*', '--auto-approve', '--parallelism', '1'] },
  { name: 'two: plan --out', project: 'two', args: ['plan', '--no-synth', '--out', 'both.plan'], env: { SF_CMP_TTL: '2h' } },
  { name: 'two: show --stack', project: 'two', args: ['show', 'both.plan', '--stack', 'green', '--stack', 'red'] },
  { name: 'two: apply saved plan --stack', project: 'two', args: ['apply', 'both.plan', '--stack', 'blue'] },
  { name: 'two: apply saved plan without token', project: 'two', args: ['apply', 'both.plan'], env: { SERVICE_TOKEN: undefined } },
  // Several plan files (one per CI job of a fleet), shown and applied as one set; stacks and --changed.
  { name: 'two: plan blue --out', project: 'two', args: ['plan', '--stack', 'blue', '--out', 'blue.plan'], env: { SF_CMP_TTL: '2h' } },
  { name: 'two: plan green --out', project: 'two', args: ['plan', '--no-synth', '--stack', 'green', '--out', 'green.plan'] },
  { name: 'two: stacks, both changed', project: 'two', args: ['stacks', '--no-synth'] },
  { name: 'two: stacks --changed matrix', project: 'two', args: ['stacks', '--no-synth', '--changed', '--format', 'github-matrix'] },
  { name: 'two: plan --changed', project: 'two', args: ['plan', '--no-synth', '--changed'] },
  { name: 'two: show two files', project: 'two', args: ['show', 'blue.plan', 'green.plan'] },
  { name: 'two: show two files markdown', project: 'two', args: ['show', 'blue.plan', 'green.plan', '--format', 'markdown'] },
  { name: 'two: show two files --stack', project: 'two', args: ['show', 'blue.plan', 'green.plan', '--stack', 'green', '--format', 'json'] },
  { name: 'two: show a stack in two files', project: 'two', args: ['show', 'blue.plan', 'both.plan'] },
  { name: 'two: apply a stack in two files', project: 'two', args: ['apply', 'blue.plan', 'both.plan'] },
  { name: 'two: apply a missing file', project: 'two', args: ['apply', 'blue.plan', 'missing.plan'] },
  { name: 'two: apply a file of another app', project: 'two', args: ['apply', 'blue.plan', '../one/first.plan'] },
  { name: 'two: apply two files --stack', project: 'two', args: ['apply', 'blue.plan', 'green.plan', '--stack', 'blue'] },
  { name: 'two: apply two files --changed', project: 'two', args: ['apply', 'blue.plan', 'green.plan', '--changed'] },
  { name: 'two: apply --allow-unverified-plan alone', project: 'two', args: ['apply', '--allow-unverified-plan', '--auto-approve'] },
  { name: 'two: apply two files', project: 'two', args: ['apply', 'blue.plan', 'green.plan', '--parallelism', '1'] },
  { name: 'two: apply two files again', project: 'two', args: ['apply', 'blue.plan', 'green.plan'] },
  { name: 'two: stacks', project: 'two', args: ['stacks', '--no-synth'] },
  { name: 'two: stacks json', project: 'two', args: ['stacks', '--no-synth', '--format', 'json'] },
  { name: 'two: stacks --changed none', project: 'two', args: ['stacks', '--no-synth', '--changed', '--format', 'github-matrix'] },
  { name: 'two: stacks --format xml', project: 'two', args: ['stacks', '--no-synth', '--format', 'xml'] },
  { name: 'two: stacks unknown stack', project: 'two', args: ['stacks', '--no-synth', '--stack', 'red'] },
  { name: 'two: plan --changed none --out', project: 'two', args: ['plan', '--no-synth', '--changed', '--out', 'none.plan'] },
  { name: 'two: apply --changed none', project: 'two', args: ['apply', '--no-synth', '--changed', '--auto-approve'] },
  { name: 'two: plan --changed green', project: 'two', args: ['plan', '--changed', '--format', 'markdown'], env: { SF_CMP_TTL: '2h', SF_CMP_PROTECT: 'yes' } },
  { name: 'two: stacks --changed green', project: 'two', args: ['stacks', '--no-synth', '--changed'] },
  { name: 'two: apply --changed green', project: 'two', args: ['apply', '--no-synth', '--changed', '--auto-approve'] },
  { name: 'two: plan --changed without synth output', project: 'two', args: ['plan', '--changed', '--output', 'nowhere', '--no-synth'] },
  { name: 'two: plan one state corrupt', project: 'two', args: ['plan', '--no-synth'], before: corrupt('.secretform/blue.state.json') },
  { name: 'two: plan --out one state corrupt', project: 'two', args: ['plan', '--no-synth', '--out', 'broken.plan', '--format', 'json'] },
  { name: 'two: apply one state corrupt', project: 'two', args: ['apply', '--no-synth', '--stack', '*', '--auto-approve'] },
  { name: 'two: drift one state corrupt', project: 'two', args: ['drift', '--no-synth', '--format', 'json'] },
  { name: 'two: apply saved plan one state corrupt', project: 'two', args: ['apply', 'both.plan'] },
  { name: 'two: destroy protected', project: 'two', args: ['apply', '--stack', '*', '--auto-approve', '--parallelism', '1'], env: { SF_CMP_PROTECT: 'yes' }, before: remove('two', '.secretform/blue.state.json') },
  { name: 'two: destroy protected refused', project: 'two', args: ['destroy', '--no-synth', '--stack', '*', '--auto-approve'], env: { SF_CMP_PROTECT: 'yes' } },
  { name: 'two: plan policy failure', project: 'two', args: ['plan', '--no-synth', '--policy', 'recommended'], env: { SF_CMP_TTL: '48h' } },
  { name: 'two: plan policy failure synth', project: 'two', args: ['plan', '--policy', 'recommended'], env: { SF_CMP_TTL: '48h' } },
  { name: 'two: apply policy failure', project: 'two', args: ['apply', '--no-synth', '--stack', '*', '--policy', 'recommended', '--auto-approve'], env: { SF_CMP_TTL: '48h' } },
  { name: 'two: drift history corrupt', project: 'two', args: ['drift', '--no-synth', '--detailed-exitcode'], env: { SF_CMP_TTL: undefined }, before: write('two', '.secretform/green.drift.json', '{ damaged') },
  { name: 'two: drift history listing corrupt', project: 'two', args: ['drift', 'history'] },
  { name: 'two: plan other service', project: 'two', args: ['plan', '--no-synth'], env: otherServer, before: remove('two', '.secretform/green.drift.json') },
  { name: 'two: apply other service', project: 'two', args: ['apply', '--no-synth', '--stack', '*', '--auto-approve'], env: otherServer },
  { name: 'two: drift other service', project: 'two', args: ['drift', '--no-synth'], env: otherServer },
];

interface Outcome {
  name: string;
  args: string[];
  code: number | null;
  stdout: string;
  stderr: string;
}

async function runAll(root: string): Promise<Outcome[]> {
  const base = mkdtempSync(join(tmpdir(), 'secretform-compare-'));
  const dirs = { one: join(base, 'one'), two: join(base, 'two'), conn: join(base, 'conn') };
  const bodies = { one: ONE_STACK, two: TWO_STACKS, conn: CONNECTED };
  for (const project of ['one', 'two', 'conn'] as const) {
    mkdirSync(dirs[project]);
    writeFileSync(join(dirs[project], 'cdktf.json'), JSON.stringify({ app: 'node main.js' }));
    writeFileSync(join(dirs[project], 'main.js'), app(root, bodies[project]));
    writeFileSync(join(dirs[project], 'pw.txt'), 'compare-password-value\n');
  }
  const servers = [await startDevServer({ port: 0, rootToken: ROOT_TOKEN }), await startDevServer({ port: 0, rootToken: ROOT_TOKEN })];
  const world: World = { dirs, servers };
  const outcomes: Outcome[] = [];
  try {
    for (const step of STEPS) {
      step.before?.(world);
      const env = environment(world, typeof step.env === 'function' ? step.env(world) : step.env ?? {});
      const run = await runCli(join(root, 'bin', 'secretform.js'), step.args, dirs[step.project], env);
      outcomes.push({ name: step.name, args: step.args, ...mask(run, world, base) });
    }
  } finally {
    await Promise.all(servers.map((server) => server.close()));
    rmSync(base, { recursive: true, force: true });
  }
  return outcomes;
}

function environment(world: World, extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(SERVICE_|SECRETFORM_|SF_|GITHUB_|CI_|GITLAB_CI$|FORCE_COLOR$|NO_COLOR$)/.test(name)) env[name] = value;
  }
  Object.assign(env, {
    SERVICE_ADDR: world.servers[0].url,
    SERVICE_TOKEN: ROOT_TOKEN,
    CONN_TOKEN: undefined,
    SF_CMP_ADDR: world.servers[0].url,
    SECRETFORM_SYNTH_ENV: 'SF_CMP_TTL,SF_CMP_PROTECT,SF_CMP_ADDR',
  });
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  return env;
}

function runCli(bin: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Omit<Outcome, 'name' | 'args'>> {
  // Asynchronous: the dev servers run in this process.
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdin.end();
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** What differs between two runs by nature: where they ran, when, how long it took, random ids. */
function mask(run: Omit<Outcome, 'name' | 'args'>, world: World, base: string): Omit<Outcome, 'name' | 'args'> {
  const clean = (text: string) => {
    let out = text.split(base).join('<BASE>');
    world.servers.forEach((server, i) => {
      out = out.split(server.url).join(`<SERVER${i + 1}>`).split(server.url.replace('http://', '')).join(`<HOST${i + 1}>`);
    });
    return out
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<TIME>')
      .replace(/\b\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?( UTC)?/g, '<TIME>')
      .replace(/\b\d+(\.\d+)?\s?(ms|s|m)\b/g, '<DURATION>')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<UUID>')
      .replace(/\bpid \d+/g, 'pid <PID>')
      .replace(new RegExp(`\\b${process.pid}\\b`, 'g'), '<PID>');
  };
  return { code: run.code, stdout: inOneOrder(clean(run.stdout)), stderr: clean(run.stderr) };
}

/**
 * Stacks that do not wait for each other apply at the same time, so their progress lines (`[2/6] blue/kv:
 * created`) come in any order: each run of such lines is compared without its counters, sorted.
 */
function inOneOrder(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    if (!/^\[\d+\/\d+\] /.test(lines[i])) {
      out.push(lines[i++]);
      continue;
    }
    const run: string[] = [];
    while (i < lines.length && /^\[\d+\/\d+\] /.test(lines[i])) run.push(lines[i++].replace(/^\[\d+\//, '[n/'));
    out.push(...run.sort());
  }
  return out.join('\n');
}

function render(outcome: Outcome): string {
  return `### ${outcome.name}: secretform ${outcome.args.join(' ')}\nexit ${outcome.code}\n--- stdout\n${outcome.stdout}--- stderr\n${outcome.stderr}`;
}

async function main(): Promise<number> {
  const [reference, candidate] = process.argv.slice(2).filter((arg, i, all) => !arg.startsWith('--') && all[i - 1] !== '--keep');
  const keepAt = process.argv.indexOf('--keep');
  const keep = keepAt > 0 ? process.argv[keepAt + 1] : undefined;
  if (reference === undefined || candidate === undefined) {
    process.stderr.write('usage: npx tsx scripts/compare-cli-outputs.ts REFERENCE_ROOT CANDIDATE_ROOT [--keep DIR]\n');
    return 2;
  }
  const before = await runAll(resolve(reference));
  const after = await runAll(resolve(candidate));
  let differing = 0;
  let bytes = 0;
  for (let i = 0; i < before.length; i++) {
    const [a, b] = [render(before[i]), render(after[i])];
    bytes += Buffer.byteLength(before[i].stdout) + Buffer.byteLength(before[i].stderr);
    if (a === b) continue;
    differing += 1;
    process.stdout.write(`DIFFERS ${before[i].name}\n${diff(a, b)}\n`);
  }
  if (keep !== undefined) {
    mkdirSync(keep, { recursive: true });
    writeFileSync(join(keep, 'reference.txt'), before.map(render).join('\n'));
    writeFileSync(join(keep, 'candidate.txt'), after.map(render).join('\n'));
  }
  const failures = before.filter((outcome) => outcome.code !== 0).length;
  process.stdout.write(`${before.length} commands compared (${failures} failing with the reference), ${bytes} bytes of output, ${differing} differ\n`);
  return differing === 0 ? 0 : 1;
}

/** A line diff of two texts (diff -u when available, else both texts). */
function diff(a: string, b: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'secretform-compare-diff-'));
  writeFileSync(join(dir, 'reference'), a);
  writeFileSync(join(dir, 'candidate'), b);
  const run = spawnSync('diff', ['-u', 'reference', 'candidate'], { cwd: dir, encoding: 'utf8' });
  rmSync(dir, { recursive: true, force: true });
  return run.stdout || `--- reference\n${a}\n+++ candidate\n${b}`;
}

main().then((code) => process.exit(code), (error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(2);
});
