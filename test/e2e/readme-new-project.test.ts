/**
 * README.md's "A new project", followed to the letter: the repository packed where the README's clone would
 * put its tarball, the marked shell blocks run by bash as written (`new-project.sh`, `try-it.sh`,
 * `deploy.sh`), the marked files written as shown (`cdktf.json`, `tsconfig.json`, `main.ts`), against the dev
 * server the README starts with `npx secretform dev-server`. Only two things differ from a user's terminal, both
 * explicit below: the dev server listens on a free port rather than 8200 (tests run in parallel), and
 * `npm install -D cdktf-cli` links this repository's cdktf-cli (the same version, a devDependency) rather than
 * downloading it again. terraform runs offline as the README says.
 */
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ok, packRepository, ROOT } from '../support/package-tarball';
import { readmeBlock } from '../support/readme-blocks';
import { startDevServerProcess, stopDevServerProcess } from '../support/dev-server-process';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(600_000);

const TERRAFORM = process.env.SECRETFORM_TEST_TERRAFORM ?? '/usr/local/bin/terraform';
const haveTerraform = fs.existsSync(TERRAFORM);
if (!haveTerraform) {
  const why = `terraform not found at ${TERRAFORM}: the README's cdktf deploy step cannot run`;
  if (process.env.CI === 'true') throw new Error(why);
  process.stderr.write(`SKIPPED: ${why}\n`);
}

/** The README's port; the test's dev server takes a free one and the blocks are pointed at it. */
const README_ADDR = 'http://127.0.0.1:8200';
const SECRETS = ['admin-password', 'choose-a-password', 'choose-one', 'choose-another'];

let workdir: string;
let project: string;
const devServers: ChildProcess[] = [];
let serverUrl: string;
let env: NodeJS.ProcessEnv;
const outputs: string[] = [];

/** Runs a README shell block with bash, stopping at the first failing command, as a user pasting it would see. */
async function runBlock(name: string, cwd: string, edit: (block: string) => string = (block) => block): Promise<string> {
  const output = await ok('bash', ['-euo', 'pipefail', '-c', edit(readmeBlock(name))], cwd, env);
  outputs.push(output);
  return output;
}

/**
 * Starts the dev server as a README line says (`npx secretform dev-server [--port N]`), on a free port instead of
 * N; resolves its address.
 */
function startReadmeDevServer(cwd = project, line = 'npx secretform dev-server'): Promise<string> {
  const args = line.replace(/#.*$/, '').trim().split(/\s+/);
  expect(args.slice(0, 3)).toEqual(['npx', 'secretform', 'dev-server']);
  const port = args.indexOf('--port');
  if (port >= 0) args.splice(port, 2);
  // Its own process group: npx runs the server as a child of its own, and both must stop at the end.
  const server = startDevServerProcess('npx', ['--no-install', ...args.slice(1)], { cwd, env, detached: true });
  devServers.push(server.child);
  return server.url;
}

async function read(apiPath: string): Promise<{ status: number; data?: Record<string, unknown> }> {
  const response = await fetch(`${serverUrl}/v1/${apiPath}`, { headers: { 'X-Service-Token': 'root' } });
  const body = (await response.json().catch(() => ({}))) as { data?: Record<string, unknown> };
  return { status: response.status, data: body.data };
}

beforeAll(async () => {
  workdir = tempDir('secretform-readme-');
  // Where `git clone ... secretform && (cd secretform && npm ci && npm pack)` leaves the tarball.
  fs.mkdirSync(path.join(workdir, 'secretform'));
  await packRepository(path.join(workdir, 'secretform'));
  const cliConfig = path.join(workdir, 'empty.tfrc');
  fs.writeFileSync(cliConfig, '');
  env = { ...process.env, TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: '1' };
  for (const name of Object.keys(env)) if (name.startsWith('SERVICE_') || name.startsWith('SECRETFORM_')) delete env[name];
});

afterAll(async () => {
  for (const server of devServers) {
    if (server.pid === undefined || server.exitCode !== null) continue;
    const closed = new Promise((resolve) => server.once('close', resolve));
    stopDevServerProcess(server, true);
    await closed;
  }
  if (workdir) fs.rmSync(workdir, { recursive: true, force: true });
});

describe('README "A new project", to the letter', () => {
  test('new-project.sh installs the packed tarball, the framework, tsx and TypeScript', async () => {
    await runBlock('new-project.sh', workdir);
    project = path.join(workdir, 'secrets');
    for (const name of ['secretform', 'cdktf', 'constructs', 'tsx', 'typescript', '@types/node']) {
      expect(fs.existsSync(path.join(project, 'node_modules', name, 'package.json'))).toBe(true);
    }
    for (const file of ['cdktf.json', 'tsconfig.json', 'main.ts']) fs.writeFileSync(path.join(project, file), readmeBlock(file));
  });

  test('try-it.sh type-checks main.ts, synthesizes, plans and applies against the dev server', async () => {
    serverUrl = await startReadmeDevServer();
    const output = await runBlock('try-it.sh', project, (block) => {
      expect(block).toContain(README_ADDR);
      return block.split(README_ADDR).join(serverUrl);
    });
    expect(output).toContain('synthesized 1 stack');
    expect((await read('auth/userpass/users/ci-bot')).data).toMatchObject({ token_policies: ['deployer'], token_ttl: 3600 });
    expect((await read('ldap/static-role/svc-app')).data).toMatchObject({ username: 'svc-app-1' });
    expect((await read('ldap/config')).data).toMatchObject({ userdn: 'ou=service-accounts,dc=example,dc=org', starttls: true });
    // The README's own stack passes the `recommended` pack: its directory connection uses StartTLS (ldap-tls).
    const checked = await ok('npx', ['--no-install', 'secretform', 'plan', '--no-synth', '--policy', 'recommended'], project, {
      ...env, SERVICE_ADDR: serverUrl, SERVICE_TOKEN: 'root', LDAP_BINDPASS: 'admin-password', CI_BOT_PASSWORD: 'choose-a-password',
    });
    expect(checked).not.toContain('ldap-tls');
  });

  test('two environments: environments-main.ts on the two dev servers of environments-servers.sh, applied and then in sync', async () => {
    const envs = path.join(workdir, 'secrets-envs');
    fs.mkdirSync(envs);
    fs.symlinkSync(path.join(project, 'node_modules'), path.join(envs, 'node_modules'), 'dir');
    for (const file of ['cdktf.json', 'tsconfig.json']) fs.writeFileSync(path.join(envs, file), readmeBlock(file));
    fs.writeFileSync(path.join(envs, 'main.ts'), readmeBlock('environments-main.ts'));
    const lines = readmeBlock('environments-servers.sh').trim().split('\n');
    expect(lines).toHaveLength(2);
    const [staging, prod] = await Promise.all(lines.map((line) => startReadmeDevServer(envs, line)));

    // The block for two real services, its placeholders (`...`) filled in; the services are the two dev servers,
    // at the addresses the reader's code would name (given through the variables main.ts reads).
    const real = await runBlock('environments-real.sh', envs, (block) => {
      const filled = block
        .replace('STAGING_SERVICE_TOKEN=... PROD_SERVICE_TOKEN=...', 'STAGING_SERVICE_TOKEN=root PROD_SERVICE_TOKEN=root')
        .replace('STAGING_CI_BOT_PASSWORD=... PROD_CI_BOT_PASSWORD=...', 'STAGING_CI_BOT_PASSWORD=choose-one PROD_CI_BOT_PASSWORD=choose-another');
      expect(filled).not.toContain('...');
      // The test's stdin is no terminal to answer apply's question: it approves with the flag a CI job passes.
      expect(filled).toContain('npx secretform apply --stack staging ');
      const approved = filled.replace('npx secretform apply --stack staging ', 'npx secretform apply --stack staging --auto-approve ');
      return `export STAGING_SERVICE_ADDR=${staging} PROD_SERVICE_ADDR=${prod} SECRETFORM_SYNTH_ENV=STAGING_SERVICE_ADDR,PROD_SERVICE_ADDR\n${approved}`;
    });
    expect(real).toContain('over 2 stacks');
    const users = (url: string) => fetch(`${url}/v1/auth/userpass/users/ci-bot`, { headers: { 'X-Service-Token': 'root' } }).then((response) => response.status);
    expect([await users(staging), await users(prod)]).toEqual([200, 404]); // --stack staging: prod is not touched

    const output = await runBlock('environments-try.sh', envs, (block) => {
      for (const [readmeAddr, url] of [['http://127.0.0.1:8201', staging], ['http://127.0.0.1:8202', prod]]) {
        expect(block).toContain(readmeAddr);
        block = block.split(readmeAddr).join(url);
      }
      return block;
    });
    expect(output).toContain('No changes.');
    for (const [url, ttl] of [[staging, 3600], [prod, 900]] as const) {
      const response = await fetch(`${url}/v1/auth/userpass/users/ci-bot`, { headers: { 'X-Service-Token': 'root' } });
      expect(((await response.json()) as { data: Record<string, unknown> }).data).toMatchObject({ token_policies: ['deployer'], token_ttl: ttl });
    }
  });

  (haveTerraform ? test : test.skip)('deploy.sh runs cdktf deploy through terraform offline, which converges with nothing to change', async () => {
    // `npm install -D cdktf-cli`: this repository's own copy of the same version, linked (no second download).
    const modules = path.join(project, 'node_modules');
    fs.symlinkSync(path.join(ROOT, 'node_modules', 'cdktf-cli'), path.join(modules, 'cdktf-cli'), 'dir');
    fs.symlinkSync(path.join(ROOT, 'node_modules', 'cdktf-cli', 'bundle', 'bin', 'cdktf'), path.join(modules, '.bin', 'cdktf'));
    const deployEnv = { SERVICE_ADDR: serverUrl, SERVICE_TOKEN: 'root', LDAP_BINDPASS: 'admin-password', CI_BOT_PASSWORD: 'choose-a-password' };
    Object.assign(env, deployEnv);
    const output = await runBlock('deploy.sh', project, (block) => block.replace(/^npm install -D cdktf-cli\s*$/m, ': cdktf-cli linked above'));
    expect(output).toMatch(/secretform apply/);
    expect(output).toMatch(/No changes|0 to add, 0 to change, 0 to destroy/);
    expect((await read('auth/userpass/users/ci-bot')).status).toBe(200);
  });

  test('no output of the README steps, the synthesized stack or the state holds a secret value', () => {
    const files = [path.join(project, 'cdktf.out', 'stacks', 'prod', 'cdk.tf.json'), ...fs.readdirSync(path.join(project, '.secretform')).map((file) => path.join(project, '.secretform', file))];
    for (const text of [...outputs, ...files.filter((file) => fs.statSync(file).isFile()).map((file) => fs.readFileSync(file, 'utf8'))]) {
      for (const secret of SECRETS) expect(text).not.toContain(secret);
    }
  });
});
