/**
 * A run over several stacks through the real binary: a three-stack app (base, and staging and prod that depend
 * on it), each stack on its own dev server (ServiceConnection, different root tokens; SERVICE_ADDR points at
 * nothing), planned in one run (text, markdown, JSON), applied with --stack '*' in dependency order with each
 * stack's objects on its own server only, destroyed in the reverse order; a stale saved plan of several stacks
 * refused with no write anywhere; a server that is down (or a stack that fails) stopping its stack and its
 * dependents only; a stack with nothing to do saying what it says alone; a dependency cycle and bad --stack
 * values refused before any request.
 */
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { cliEnv, ROOT, runCli, transcript } from './cli-harness';
import { tempDir } from '../support/temp-dir';

const BASE_PASSWORD = 'env-run-base-password-3d9a';
const PROD_PASSWORD = 'env-run-prod-password-71ce';

const STACKS = ['base', 'prod', 'staging'] as const;
type Stack = (typeof STACKS)[number];
const TOKENS: Record<Stack, string> = { base: 'base-root-token-5c1e', prod: 'prod-root-token-0b7d', staging: 'staging-root-token-e29f' };

/**
 * base: a KV mount and a userpass user; staging and prod (each depending on base): a KV mount and a user each.
 * Each stack's ServiceConnection names its server (SF_ENV_<STACK>_ADDR at synth) and token variable.
 */
const APP = `
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
const app = new App();
const connect = (stack) => new sf.ServiceConnection(stack, 'service', { address: process.env['SF_ENV_' + stack.node.id.toUpperCase() + '_ADDR'], tokenEnv: stack.node.id.toUpperCase() + '_SERVICE_TOKEN' });
const base = new TerraformStack(app, 'base');
connect(base);
new sf.SecretsMount(base, 'kv', { path: 'shared', type: 'kv', options: { version: '2' } });
const baseAuth = new sf.AuthMount(base, 'auth', { path: 'base-users', type: 'userpass' });
new sf.UserpassUser(base, 'ops', { mount: baseAuth, username: 'ops', password: sf.SecretValue.fromEnv('SF_ENV_BASE_PASSWORD'), tokenPolicies: ['default'] });
for (const name of ['staging', 'prod']) {
  const stack = new TerraformStack(app, name);
  stack.addDependency(base);
  connect(stack);
  new sf.SecretsMount(stack, 'kv', { path: name + '-apps', type: 'kv', options: { version: '2' } });
  const auth = new sf.AuthMount(stack, 'auth', { path: name + '-users', type: 'userpass' });
  new sf.UserpassUser(stack, 'deployer', { mount: auth, username: 'deployer', password: sf.SecretValue.fromEnv('SF_ENV_PROD_PASSWORD'), tokenPolicies: ['default'] });
}
app.synth();
`;

/** The dev server of each stack: restarted empty on the same port before each test (the port is synthesized). */
const servers = {} as Record<Stack, DevServer>;
const ports = {} as Record<Stack, number>;
let project: string;
let outdir: string;

beforeAll(async () => {
  for (const stack of STACKS) {
    servers[stack] = await startDevServer({ port: 0, rootToken: TOKENS[stack] });
    ports[stack] = Number(new URL(servers[stack].url).port);
  }
  project = tempDir('secretform-environments-');
  writeFileSync(join(project, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
  writeFileSync(join(project, 'main.js'), APP);
  outdir = join(project, 'cdktf.out');
  const synth = await runCli(['synth'], project, env());
  if (synth.code !== 0) throw new Error(`synth failed: ${synth.stderr}`);
}, 120_000);

beforeEach(async () => {
  for (const stack of STACKS) {
    await servers[stack].close();
    servers[stack] = await startDevServer({ port: ports[stack], rootToken: TOKENS[stack] });
  }
  // Each test starts from empty state files.
  project = freshProject();
});

afterAll(async () => {
  for (const stack of STACKS) await servers[stack]?.close();
});

/** Every project directory of the file, for the search for secret values. */
const projects: string[] = [];

function freshProject(): string {
  const dir = tempDir('secretform-environments-run-');
  projects.push(dir);
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
  return dir;
}

/** SERVICE_ADDR and SERVICE_TOKEN lead nowhere: every stack must use its own connection. */
function env(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const connections: Record<string, string> = { SECRETFORM_SYNTH_ENV: 'SF_ENV_*' };
  for (const stack of STACKS) {
    connections[`SF_ENV_${stack.toUpperCase()}_ADDR`] = `http://127.0.0.1:${ports[stack]}`;
    connections[`${stack.toUpperCase()}_SERVICE_TOKEN`] = TOKENS[stack];
  }
  return cliEnv({ url: 'http://127.0.0.1:1', rootToken: 'not-the-token-of-any-server' }, { ...connections, SF_ENV_BASE_PASSWORD: BASE_PASSWORD, SF_ENV_PROD_PASSWORD: PROD_PASSWORD, ...extra });
}

/** A command over the synth output made once (no synth per run). */
function sf(args: string[], extra: Record<string, string | undefined> = {}) {
  return runCli([...args, '--no-synth', '--output', outdir], project, env(extra));
}

const requests = () => STACKS.flatMap((stack) => servers[stack].requestLog);
const writes = () => requests().filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST');
/** Whether the mount exists on the server of `stack`. */
const mounted = async (stack: Stack, path: string) => (await call(servers[stack], 'GET', `sys/mounts/${path}`)).status === 200;
/** Each stack's mount, checked on every server: on its own only. */
async function mountsByServer(): Promise<Record<Stack, string[]>> {
  const found = {} as Record<Stack, string[]>;
  for (const stack of STACKS) {
    found[stack] = [];
    for (const path of ['shared', 'staging-apps', 'prod-apps']) if (await mounted(stack, path)) found[stack].push(path);
  }
  return found;
}
/** The addresses in the order the run reported them done (`[n/N] <address>: created (0.1 s)` progress lines). */
const doneOrder = (stdout: string, verb: string) => [...stdout.matchAll(new RegExp(`^\\[\\d+/\\d+\\] (\\S+): ${verb} \\(\\d+\\.\\d s\\)$`, 'gm'))].map((match) => match[1]);

test('plan covers every stack by default: a section per stack and a total line, one markdown comment, one JSON document', async () => {
  const text = await sf(['plan', '--detailed-exitcode']);
  expect(text.stderr).toBe('');
  expect(text.code).toBe(2);
  expect(text.stdout.match(/^=== Stack (\S+) ===$/gm)).toEqual(['=== Stack base ===', '=== Stack prod ===', '=== Stack staging ===']);
  expect(text.stdout).toContain('Total over 3 stacks: Plan: 9 to add, 0 to change, 0 to destroy, 0 drifted.');

  const markdown = await sf(['plan', '--format', 'markdown']);
  expect(markdown.code).toBe(0);
  expect(markdown.stdout).toContain('**Changes** over 3 stacks: 9 to add, 0 to change, 0 to destroy, 0 drifted');
  expect(markdown.stdout).toContain('| Stack | Add | Change | Destroy | Drifted | Policy | Status |');
  expect(markdown.stdout).toContain('| `base` | 3 | 0 | 0 | 0 | — | 📝 Changes |');
  expect(markdown.stdout.match(/^### Stack `(\w+)`$/gm)).toEqual(['### Stack `base`', '### Stack `prod`', '### Stack `staging`']);

  const json = await sf(['plan', '--format', 'json', '--stack', 'prod', '--stack', 'st*']);
  expect(json.code).toBe(0);
  const document = JSON.parse(json.stdout);
  expect(document.format_version).toBe('1.0');
  expect(document.stacks.map((stack: { stack: string }) => stack.stack)).toEqual(['prod', 'staging']);
  expect(document.summary).toEqual({ create: 6, update: 0, replace: 0, delete: 0, forget: 0, no_op: 0, drifted: 0 });
  expect(writes()).toEqual([]);
});

test('one stack named: the plan of that stack alone, as before', async () => {
  const json = await sf(['plan', '--format', 'json', '--stack', 'base']);
  expect(json.code).toBe(0);
  expect(JSON.parse(json.stdout)).toMatchObject({ format_version: '1.0', stack: 'base' });
});

test('--target over several stacks runs the stacks that hold a target, each with its own targets', async () => {
  const applied = await sf(['apply', '--auto-approve', '--stack', '*', '--target', 'prod/kv']);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  expect(doneOrder(applied.stdout, 'created')).toEqual(['prod/kv']);
  expect(await mountsByServer()).toEqual({ base: [], staging: [], prod: ['prod-apps'] });
  const outside = await sf(['plan', '--target', 'qa/kv']);
  expect(outside.code).toBe(1);
  expect(outside.stderr).toContain('--target qa/kv: not an address of the stacks of this run (base, prod, staging)');
});

test('apply and destroy refuse several stacks unless named; unknown stacks and patterns are errors listing the stacks', async () => {
  for (const command of ['apply', 'destroy']) {
    const refused = await sf([command, '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`holds 3 stacks (base, prod, staging); ${command} changes the service, so name the stacks`);
  }
  const unknown = await sf(['plan', '--stack', 'qa']);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toBe('Error: there is no stack "qa"; stacks: base, prod, staging\n');
  const none = await sf(['apply', '--auto-approve', '--stack', 'base', '--stack', 'dev-*']);
  expect(none.code).toBe(1);
  expect(none.stderr).toBe("Error: --stack 'dev-*' matches no stack; stacks: base, prod, staging\n");
  expect(requests()).toEqual([]);
});

test("apply --stack '*' writes base before the stacks that depend on it; destroy removes them first; each ends with the total", async () => {
  const applied = await sf(['apply', '--auto-approve', '--stack', '*']);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  const created = doneOrder(applied.stdout, 'created');
  expect(created).toHaveLength(9);
  // N counts the operations of the stacks started so far: the last line is the ninth of nine.
  expect(applied.stdout).toMatch(/^\[9\/9\] \S+: created /m);
  expect(applied.stdout).toMatch(/\n\nTotal over 3 stacks: Apply complete! Resources: 9 added, 0 changed, 0 destroyed\.\nTotal time: \d+\.\d s\n$/);
  const lastBase = Math.max(...['base/kv', 'base/auth', 'base/ops'].map((address) => created.indexOf(address)));
  expect(created.slice(0, lastBase + 1).every((address) => address.startsWith('base/'))).toBe(true);
  expect(await mountsByServer()).toEqual({ base: ['shared'], staging: ['staging-apps'], prod: ['prod-apps'] });
  expect(readdirSync(join(project, '.secretform')).filter((name) => name.endsWith('.state.json')).sort()).toEqual(['base.state.json', 'prod.state.json', 'staging.state.json']);

  const again = await sf(['plan', '--detailed-exitcode']);
  expect(again.code).toBe(0);

  const destroyed = await sf(['destroy', '--auto-approve', '--stack', '*']);
  expect(destroyed.code).toBe(0);
  expect(destroyed.stdout).toMatch(/\n\nTotal over 3 stacks: Destroy complete! Resources: 9 destroyed\.\nTotal time: \d+\.\d s\n$/);
  const removed = doneOrder(destroyed.stdout, 'destroyed');
  expect(removed).toHaveLength(9);
  const firstBase = Math.min(...['base/kv', 'base/auth', 'base/ops'].map((address) => removed.indexOf(address)));
  expect(removed.slice(firstBase).every((address) => address.startsWith('base/'))).toBe(true);
  expect(await mountsByServer()).toEqual({ base: [], staging: [], prod: [] });
});

test('a server that is down fails its stack and the stacks that depend on it; the others finish', async () => {
  await servers.prod.close();
  const prodDown = await sf(['apply', '--auto-approve', '--stack', '*']);
  expect(prodDown.code).toBe(1);
  expect(prodDown.stderr).toMatch(/Error: stack prod: /);
  expect(prodDown.stdout).toContain('=== Stack staging ===');
  servers.prod = await startDevServer({ port: ports.prod, rootToken: TOKENS.prod });
  expect(await mountsByServer()).toEqual({ base: ['shared'], staging: ['staging-apps'], prod: [] });

  await servers.base.close();
  const prodRequests = servers.prod.requestLog.length;
  const baseDown = await sf(['plan']);
  expect(baseDown.code).toBe(1);
  expect(baseDown.stdout).toMatch(/=== Stack base ===\s+Error: /);
  expect(baseDown.stdout).toContain('Skipped: not planned: stack base, which it depends on, failed or was skipped');
  expect(baseDown.stderr).toContain('Error: stack prod was not planned: stack base, which it depends on, failed or was skipped');
  expect(servers.prod.requestLog.length).toBe(prodRequests);
  servers.base = await startDevServer({ port: ports.base, rootToken: TOKENS.base });
});

test('a stack that fails stops the stacks that depend on it; the others finish, the total says the run did not complete, and it exits 1', async () => {
  const baseFails = await sf(['apply', '--auto-approve', '--stack', '*'], { SF_ENV_BASE_PASSWORD: undefined });
  expect(baseFails.code).toBe(1);
  expect(baseFails.stderr).toContain('Error: stack base:');
  expect(baseFails.stderr).toContain('SF_ENV_BASE_PASSWORD');
  expect(baseFails.stderr).toContain('Error: stack prod was not applied: stack base, which it waits for, failed or was skipped');
  expect(baseFails.stderr).toContain('Error: stack staging was not applied: stack base, which it waits for, failed or was skipped');
  expect(writes()).toEqual([]);
  expect(baseFails.stderr).not.toContain('stack prod:');

  const planOnly = await sf(['plan', '--format', 'markdown'], { SF_ENV_PROD_PASSWORD: undefined, SF_ENV_BASE_PASSWORD: BASE_PASSWORD });
  expect(planOnly.code).toBe(1);
  expect(planOnly.stdout).toMatch(/\| `prod` \| — \| — \| — \| — \| — \| ❌ Error: error \|/);

  const prodFails = await sf(['apply', '--auto-approve', '--stack', '*'], { SF_ENV_PROD_PASSWORD: undefined });
  expect(prodFails.code).toBe(1);
  expect(prodFails.stderr).toMatch(/Error: stack prod: .*SF_ENV_PROD_PASSWORD/s);
  expect(await mountsByServer()).toEqual({ base: ['shared'], staging: [], prod: [] });
  // staging uses the same variable: it fails too, on its own; base, which needs neither, is applied.
  expect(prodFails.stderr).toMatch(/Error: stack staging: .*SF_ENV_PROD_PASSWORD/s);
  expect(prodFails.stdout).toContain('=== Stack base ===');
  expect(prodFails.stdout).toMatch(/\n\nTotal over 3 stacks: Apply did not complete \(2 stacks failed\)\. Resources: 3 added, 0 changed, 0 destroyed\.\nTotal time: \d+\.\d s\n$/);
});

test('a stale saved plan over several stacks is refused before any write on any stack; a fresh one applies, ending as apply does', async () => {
  const planFile = join(project, 'all.plan');
  const planned = await sf(['plan', '--out', planFile]);
  expect(planned.code).toBe(0);
  expect(JSON.parse(readFileSync(planFile, 'utf8'))).toMatchObject({ format: 'secretform-saved-plans', dependencies: { prod: ['base'], staging: ['base'] } });
  const shown = await runCli(['show', planFile, '--format', 'json'], project, env());
  expect(JSON.parse(shown.stdout).stacks).toHaveLength(3);

  // Someone creates prod's mount by hand after the review.
  expect((await call(servers.prod, 'POST', 'sys/mounts/prod-apps', { type: 'kv', options: { version: '2' } })).status).toBe(204);
  const before = writes().length;
  const stale = await sf(['apply', planFile]);
  expect(stale.code).toBe(1);
  expect(stale.stderr).toMatch(/stack prod: the saved plan is stale/);
  expect(stale.stderr).toContain('; no stack was changed');
  expect(writes().length).toBe(before);
  expect(await mountsByServer()).toEqual({ base: [], staging: [], prod: ['prod-apps'] });

  // A fresh plan applies every stack in order.
  await call(servers.prod, 'DELETE', 'sys/mounts/prod-apps');
  const fresh = await sf(['plan', '--out', planFile]);
  expect(fresh.code).toBe(0);
  const applied = await sf(['apply', planFile]);
  expect(applied.code).toBe(0);
  expect(applied.stdout).toMatch(/\n\nTotal over 3 stacks: Apply complete! Resources: 9 added, 0 changed, 0 destroyed\.\nTotal time: \d+\.\d s\n$/);
  expect(await mountsByServer()).toEqual({ base: ['shared'], staging: ['staging-apps'], prod: ['prod-apps'] });
});

/** The line a refresh-only apply of one stack ends with. */
const recorded = (drifted: number) => `Refresh-only apply complete! Recorded the live state of ${drifted} drifted resource${drifted === 1 ? '' : 's'} in state; nothing was changed on the service.`;

/** Each stack's user changed outside the code, on its own server (its policies: a field the code sets). */
async function changeUsersOutside(policies: string[]): Promise<void> {
  const users: Record<Stack, string> = { base: 'base-users/users/ops', prod: 'prod-users/users/deployer', staging: 'staging-users/users/deployer' };
  for (const stack of STACKS) expect((await call(servers[stack], 'POST', `auth/${users[stack]}`, { token_policies: policies })).status).toBe(204);
}

test('a refresh-only apply over several stacks, saved or not, says per stack and in total what it recorded and ends there, as one stack does', async () => {
  expect((await sf(['apply', '--auto-approve', '--stack', '*'])).code).toBe(0);
  // What a run of one stack ends with, under each stack's name, then the total over the stacks.
  const results = `${STACKS.map((stack) => `\n=== Stack ${stack} ===\n\n${recorded(1)}\n`).join('')}\nTotal over 3 stacks: ${recorded(3)}\n`;

  await changeUsersOutside(['default', 'ops']);
  const planFile = join(project, 'refresh-only.plan');
  expect((await sf(['plan', '--refresh-only', '--out', planFile])).code).toBe(0);
  const before = writes().length;
  const applied = await sf(['apply', planFile]);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  expect(applied.stdout).toMatch(/^Applying the saved plan .* \(3 stacks: base, prod, staging; made [^)]+\)\.\n/);
  expect(applied.stdout.slice(applied.stdout.indexOf('\n') + 1)).toBe(results);

  expect(writes().length).toBe(before);

  await changeUsersOutside(['default', 'audit']);
  const beforeAccepted = writes().length;
  const accepted = await sf(['apply', '--refresh-only', '--auto-approve', '--stack', '*']);
  expect(accepted.stderr).toBe('');
  expect(accepted.code).toBe(0);
  // The end of the output: no Total time, as after a refresh-only apply of one stack.
  expect(accepted.stdout.slice(-results.length)).toBe(results);
  expect(accepted.stdout).not.toContain('Apply complete!');
  expect(writes().length).toBe(beforeAccepted);
  expect((await sf(['plan', '--refresh-only', '--detailed-exitcode'])).code).toBe(0);
});

test('a refresh-only plan over several stacks totals what drifted in the words each stack ends with, in the log and the comment', async () => {
  expect((await sf(['apply', '--auto-approve', '--stack', '*'])).code).toBe(0);
  await changeUsersOutside(['default', 'ops']);
  const text = await sf(['plan', '--refresh-only']);
  expect(text.stderr).toBe('');
  expect(text.code).toBe(0);
  expect(text.stdout.match(/^Refresh-only plan: .*$/gm)).toEqual(['Refresh-only plan: 1 drifted.', 'Refresh-only plan: 1 drifted.', 'Refresh-only plan: 1 drifted.']);
  expect(text.stdout).toMatch(/\nTotal over 3 stacks: Refresh-only plan: 3 drifted\.\n$/);
  const markdown = await sf(['plan', '--refresh-only', '--format', 'markdown']);
  expect(markdown.code).toBe(0);
  expect(markdown.stdout.split('\n')[0]).toBe('⚠️ **Drift** over 3 stacks: 3 drifted (refresh-only plan)');
});

/** The `npx secretform <command> ...` line of an example CI workflow, its variables filled in, as arguments. */
function workflowLine(file: string, command: string, variables: Record<string, string>): string[] {
  const text = readFileSync(join(ROOT, 'examples', 'ci', file), 'utf8');
  const line = text.split('\n').map((entry) => entry.trim().replace(/^run: /, '')).find((entry) => entry.startsWith(`npx secretform ${command} `));
  if (line === undefined) throw new Error(`${file} has no \`npx secretform ${command}\` line`);
  const filled = line.replace(/"\$(\w+)"/g, (_, name: string) => variables[name]);
  return filled.split(/\s+/).slice(2);
}

test("the example CI workflows' lines plan every stack into one comment and one saved plan, and apply it", async () => {
  const variables = { PLAN_FILE: join(project, 'secretform.plan'), PLAN_MARKDOWN: join(project, 'secretform-plan.md') };
  const planned = await runCli([...workflowLine('secretform-plan.yml', 'plan', variables), '--no-synth', '--output', outdir], project, env());
  expect(planned.code).toBe(2);
  const comment = readFileSync(variables.PLAN_MARKDOWN, 'utf8');
  expect(comment).toContain('| Stack | Add | Change | Destroy | Drifted | Policy | Status |');
  expect(comment.match(/^### Stack `(\w+)`$/gm)).toHaveLength(3);
  const applied = await runCli([...workflowLine('secretform-apply.yml', 'apply', variables), '--no-synth', '--output', outdir], project, env());
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  expect(await mountsByServer()).toEqual({ base: ['shared'], staging: ['staging-apps'], prod: ['prod-apps'] });
});

test('apply and destroy over several stacks with nothing to do end with one line and no total or Total time, as one stack does', async () => {
  expect((await sf(['apply', '--auto-approve', '--stack', '*'])).code).toBe(0);
  const before = writes().length;
  const applied = await sf(['apply', '--auto-approve', '--stack', '*']);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  // The plans, then what one stack says after its plan, over the stacks: no section per stack, no total.
  expect(applied.stdout.endsWith('\nTotal over 3 stacks: Plan: 0 to add, 0 to change, 0 to destroy, 0 drifted.\n\nNothing to apply in 3 stacks.\n')).toBe(true);
  expect(applied.stdout).not.toMatch(/complete!|Total time/);
  expect(writes().length).toBe(before);

  expect((await sf(['destroy', '--auto-approve', '--stack', '*'])).code).toBe(0);
  const destroyed = await sf(['destroy', '--auto-approve', '--stack', '*']);
  expect(destroyed.code).toBe(0);
  expect(destroyed.stdout.endsWith('\n\nNo resources in state for any of the 3 stacks to destroy. Nothing to do.\n')).toBe(true);
  expect(destroyed.stdout).not.toMatch(/complete!|Total time/);
});

test('a stack with nothing to do among stacks that change says under its name what a run of it alone says, in the preview and the result', async () => {
  expect((await sf(['apply', '--auto-approve', '--stack', '*'])).code).toBe(0);
  // prod's mount deleted outside: only prod has something to apply.
  expect((await call(servers.prod, 'DELETE', 'sys/mounts/prod-apps')).status).toBe(204);
  const applied = await sf(['apply', '--auto-approve', '--stack', '*']);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  const sections = applied.stdout.slice(applied.stdout.indexOf('\n=== Stack base ===\n\nNothing to apply.'));
  expect(sections).toMatch(
    /^\n=== Stack base ===\n\nNothing to apply\.\n\n=== Stack prod ===\n\nApply complete! Resources: 1 added, 0 changed, 0 destroyed\.\n\n=== Stack staging ===\n\nNothing to apply\.\n\nTotal over 3 stacks: Apply complete! Resources: 1 added, 0 changed, 0 destroyed\.\nTotal time: \d+\.\d s\n$/,
  );

  // prod destroyed alone, then again alone: what one stack says when it has nothing to destroy.
  expect((await sf(['destroy', '--auto-approve', '--stack', 'prod'])).code).toBe(0);
  const alone = await sf(['destroy', '--auto-approve', '--stack', 'prod']);
  expect(alone.stdout).toBe('No resources in state for stack prod to destroy. Nothing to do.\n');
  const destroyed = await sf(['destroy', '--auto-approve', '--stack', '*']);
  expect(destroyed.stderr).toBe('');
  expect(destroyed.code).toBe(0);
  // The preview, before the approval, says it too in place of a plan.
  const preview = destroyed.stdout.slice(0, destroyed.stdout.indexOf('\nTotal over 3 stacks: Plan:'));
  expect(preview).toContain(`=== Stack prod ===\n\n${alone.stdout}\n=== Stack `);
  expect(preview).not.toContain('No changes.');
  expect(destroyed.stdout).toContain(`\n=== Stack prod ===\n\n${alone.stdout}\n`);
  expect(destroyed.stdout).toContain('\n=== Stack staging ===\n\nDestroy complete! Resources: 3 destroyed.\n');
  expect(destroyed.stdout).toMatch(/\n\nTotal over 3 stacks: Destroy complete! Resources: 6 destroyed\.\nTotal time: \d+\.\d s\n$/);
  expect(destroyed.stdout).not.toContain('Resources: 0 destroyed');
});

test('a cycle in the stack dependencies is an error naming it, before any request', async () => {
  const cyclic = tempDir('secretform-environments-cycle-');
  const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8'));
  manifest.stacks.base.dependencies = ['prod'];
  writeFileSync(join(cyclic, 'manifest.json'), JSON.stringify(manifest));
  cpSync(join(outdir, 'stacks'), join(cyclic, 'stacks'), { recursive: true });
  const result = await runCli(['plan', '--no-synth', '--output', cyclic], project, env());
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/the stacks depend on each other in a cycle: (base -> prod -> base|prod -> base -> prod)/);
  expect(requests()).toEqual([]);
});

test("a stack's unset token variable fails the run before any request to any server, naming the stack and the variable", async () => {
  const result = await sf(['apply', '--auto-approve', '--stack', '*'], { STAGING_SERVICE_TOKEN: undefined });
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/stack staging: STAGING_SERVICE_TOKEN is not set/);
  expect(requests()).toEqual([]);
});

test('no secret value reaches any output, report or state file', () => {
  const files = projects.flatMap((dir) => readdirSync(dir, { recursive: true }).map((name) => join(dir, String(name)))).filter((name) => /\.(json|plan)$/.test(name));
  expect(files.some((name) => name.endsWith('base.state.json'))).toBe(true);
  const texts = [...transcript, ...files.map((name) => readFileSync(name, 'utf8'))];
  for (const text of texts) {
    for (const secret of [BASE_PASSWORD, PROD_PASSWORD, ...Object.values(TOKENS)]) expect(text).not.toContain(secret);
  }
});
