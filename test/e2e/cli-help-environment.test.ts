/**
 * Each command's --help lists, under "Environment", variables that command reads: the real binary runs every
 * command against the dev server with process.env replaced by a proxy that records the names it reads
 * (test/support/record-env-reads.cjs), and every variable a command's help lists must be among them. The other
 * way round, a variable of the catalog a command reads must be in its list (the colour variables excepted: every
 * command's terminal guard reads them, and only the commands with a coloured report list them).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { BIN, cliEnv, createProject, runCli } from './cli-harness';
import { tempDir } from '../support/temp-dir';

// Some thirty runs of the binary: on a busy 2-core machine each takes seconds.
jest.setTimeout(400_000);

const RECORDER = resolve(__dirname, '../support/record-env-reads.cjs');

/** The variables of the catalog and the ones their lines name (`GITHUB_SHA` covers GITHUB_ACTIONS, ...). */
const COVERED_BY: Record<string, string> = {
  GITHUB_ACTIONS: 'GITHUB_SHA', GITHUB_SERVER_URL: 'GITHUB_SHA', GITHUB_REPOSITORY: 'GITHUB_SHA', GITHUB_RUN_ID: 'GITHUB_SHA',
  GITLAB_CI: 'CI_COMMIT_SHORT_SHA', CI_PIPELINE_URL: 'CI_COMMIT_SHORT_SHA', CI_JOB_URL: 'CI_COMMIT_SHORT_SHA',
  GITHUB_ACTOR: 'SECRETFORM_ACTOR', GITLAB_USER_LOGIN: 'SECRETFORM_ACTOR',
};
const READ_BY_EVERY_COMMAND = ['NO_COLOR', 'FORCE_COLOR'];
/** The binary's hooks for tests of its own start (bin/secretform.js), and the recorder's file: no user sets them. */
const INTERNAL = /^(SECRETFORM_DEBUG_|SF_RECORD_ENV_READS$)/;

let server: DevServer;
let project: string;
let env: NodeJS.ProcessEnv;
/** What each command read, over all its runs. */
const reads = new Map<string, Set<string>>();

/** Runs the binary with the recorder; resolves when it exits (or, with `until`, once its stdout matches and it was stopped). */
function runRecorded(command: string, args: string[], until?: RegExp): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const file = join(tempDir('secretform-env-reads-'), 'reads.txt');
  const child = spawn(process.execPath, ['--require', RECORDER, BIN, ...args], { cwd: project, env: { ...env, SF_RECORD_ENV_READS: file }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (until?.test(stdout)) child.kill('SIGTERM');
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) => child.on('close', (code) => {
    const names = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    if (!reads.has(command)) reads.set(command, new Set());
    for (const name of names) reads.get(command)!.add(name);
    done({ code, stdout, stderr });
  }));
}

/** The variables `secretform COMMAND --help` lists under "Environment". */
async function listedBy(command: string): Promise<string[]> {
  const help = await runCli([...command.split(' '), '--help'], project, env);
  expect(help.code).toBe(0);
  expect(help.stdout).toMatch(/\nEnvironment:/);
  const section = help.stdout.split('\nEnvironment:')[1];
  return [...section.matchAll(/^ {2}([A-Z][A-Z0-9_]+)\b/gm)].map((match) => match[1]);
}

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'env-help-root' });
  project = createProject();
  // Without SECRETFORM_STATE_KEY, so that the stack's key on the service (its mount and path variables) is used.
  env = cliEnv(server, { SECRETFORM_STATE_KEY: undefined });
  // The app runs once for real; every later synth copies its output, so the many runs below stay quick.
  const synth = await runCli(['synth', '--output', 'template'], project, env);
  expect(synth.code).toBe(0);
  writeFileSync(join(project, 'copy-synth.js'), `require('node:fs').cpSync(${JSON.stringify(join(project, 'template'))}, process.env.CDKTF_OUTDIR, { recursive: true });\n`);
  writeFileSync(join(project, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node copy-synth.js' }));
});

afterAll(async () => {
  await server?.close();
});

test('every command reads the variables its --help lists, and lists the ones of the catalog it reads', async () => {
  const runs: [string, string[]][] = [
    ['synth', ['synth']],
    ['graph', ['graph']],
    ['plan', ['plan', '--format', 'markdown', '--policy', 'recommended', '--out', 'plan.json']],
    ['show', ['show', 'plan.json', '--format', 'markdown']],
    ['apply', ['apply', '--auto-approve']],
    ['apply', ['apply', '--auto-approve', '--policy', 'recommended']],
    ['action', ['action', 'login', 'e2e/alice', '--format', 'json']],
    ['exec', ['exec', 'e2e/alice', '--', process.execPath, '-e', '0']],
    ['drift', ['drift']],
    ['drift ack', ['drift', 'ack', 'e2e/alice', '--reason', 'testing']],
    ['drift unack', ['drift', 'unack', 'e2e/alice']],
    ['drift history', ['drift', 'history']],
    ['state list', ['state', 'list']],
    ['state show', ['state', 'show', 'e2e/alice']],
    ['state history', ['state', 'history']],
    ['state pull', ['state', 'pull']],
    ['state restore', ['state', 'restore', '1']],
    ['state mv', ['state', 'mv', 'e2e/kv', 'e2e/kv2']],
    ['state rm', ['state', 'rm', 'e2e/kv2']],
    ['import', ['import', '--all']],
    ['force-unlock', ['force-unlock', '--force']],
    ['generate', ['generate']],
    ['destroy', ['destroy', '--auto-approve']],
  ];
  const outputs: string[] = [];
  for (const [command, args] of runs) {
    const result = await runRecorded(command, args);
    outputs.push(`${args.join(' ')} -> ${result.code}\n${result.stderr}`);
  }
  const pulled = await runCli(['state', 'pull'], project, env);
  writeFileSync(join(project, 'pulled.json'), pulled.stdout);
  await runRecorded('state push', ['state', 'push', 'pulled.json', '--force']);
  await runRecorded('dev-server', ['dev-server', '--port', '0'], /listening|http:\/\//);
  await runRecorded('version', ['version']);
  reads.set('state', new Set([...reads].filter(([command]) => command.startsWith('state ')).flatMap(([, names]) => [...names])));

  const catalog = new Set<string>();
  const problems: string[] = [];
  for (const command of [...reads.keys()]) {
    const listed = await listedBy(command);
    listed.forEach((name) => catalog.add(name));
    const read = reads.get(command)!;
    for (const name of listed) if (!read.has(name)) problems.push(`${command} lists ${name} but did not read it`);
    for (const name of read) {
      const line = COVERED_BY[name] ?? name;
      if (line !== name && !listed.includes(line) && !READ_BY_EVERY_COMMAND.includes(name)) problems.push(`${command} read ${name} (${line}'s line) but does not list it`);
      if (line === name && /^(SERVICE|SECRETFORM)_/.test(name) && !listed.includes(name) && !INTERNAL.test(name)) problems.push(`${command} read ${name} but does not list it`);
    }
  }
  expect({ problems, outputs: problems.length > 0 ? outputs : [] }).toEqual({ problems: [], outputs: [] });
  // The runs above reached what they were meant to: a change applied, and a secret's key read from the service.
  expect([...reads.get('apply')!]).toEqual(expect.arrayContaining(['SERVICE_TOKEN', 'SECRETFORM_STATE', 'SECRETFORM_FINGERPRINT_KEY_MOUNT', 'SECRETFORM_POLICY_TIMEOUT']));
  expect(catalog.size).toBeGreaterThan(15);
});
