/**
 * Synthesis through the real command lines: `cdktf synth` (cdktf-cli) and `secretform synth`, on a project
 * whose app holds every construct. No terraform is on the PATH and nothing may reach the network.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadDesired } from '../../src/engine/setup/desired';
import { synthesize } from '../../src/synthesize';
import { SECRET_ENV, SECRET_FILE_NAME, SECRET_FILE_VALUE } from './synth-fixture';
import { tempDir } from '../support/temp-dir';

const ROOT = path.resolve(__dirname, '..', '..');
const CDKTF = path.join(ROOT, 'node_modules', '.bin', 'cdktf');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const tempDirs: string[] = [];
afterAll(() => tempDirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** PATH without any directory that holds a terraform binary: synth must not need one. */
function pathWithoutTerraform(): string {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir !== '' && !fs.existsSync(path.join(dir, 'terraform')))
    .join(path.delimiter);
}

/** Environment of a synth: secrets set (to check none leaks), telemetry and version checks off. */
function synthEnv(project: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...SECRET_ENV,
    PATH: pathWithoutTerraform(),
    CHECKPOINT_DISABLE: '1',
    DISABLE_VERSION_CHECK: 'true',
    CDKTF_DISABLE_PLUGIN_CACHE_ENV: '1',
    CDKTF_HOME: path.join(project, '.cdktf-home'),
    CI: '1',
    FORCE_COLOR: '0',
  };
}

/** A cdktf project in a temp dir whose app is `main.ts` (run with tsx). */
function makeProject(mainSource: string): string {
  const project = tempDir('secretform-cdktf-');
  tempDirs.push(project);
  fs.writeFileSync(path.join(project, 'main.ts'), mainSource);
  fs.writeFileSync(path.join(project, SECRET_FILE_NAME), SECRET_FILE_VALUE);
  fs.writeFileSync(path.join(project, 'cdktf.json'), JSON.stringify({
    language: 'typescript',
    app: `${JSON.stringify(process.execPath)} ${JSON.stringify(TSX)} main.ts`,
    output: 'cdktf.out',
    sendCrashReports: 'false',
    terraformProviders: [],
    terraformModules: [],
  }, null, 2));
  return project;
}

const CDKTF_MODULE = JSON.stringify(path.join(ROOT, 'node_modules', 'cdktf'));
const EVERY_CONSTRUCT_APP = `
import { App, TerraformStack } from ${CDKTF_MODULE};
import { addEveryConstruct } from ${JSON.stringify(path.join(ROOT, 'test', 'e2e', 'synth-fixture'))};
const app = new App();
addEveryConstruct(new TerraformStack(app, 'prod'));
app.synth();
`;

function listFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full) : [full];
  });
}

function expectNoSecretIn(outdir: string): void {
  const files = listFiles(outdir);
  expect(files.some((file) => file.endsWith('cdk.tf.json'))).toBe(true);
  const all = files.map((file) => fs.readFileSync(file, 'utf8')).join('\n');
  for (const value of [...Object.values(SECRET_ENV), SECRET_FILE_VALUE, 'cloud3-credentials-value-5a5a']) expect(all).not.toContain(value);
}

/** What must not depend on the output directory: spec, id, digest and dependencies of each resource. */
function comparable(outdir: string) {
  return loadDesired(outdir, 'prod').resources
    .map(({ address, type, id, spec, dependsOn, digest, secrets }) => ({
      address, type, id, spec, dependsOn, digest, secrets: Object.fromEntries(Object.entries(secrets).map(([field, secret]) => [field, secret.reference])),
    }))
    .sort((a, b) => a.address.localeCompare(b.address));
}

describe('cdktf synth (the real cdktf-cli command)', () => {
  let project: string;
  let result: ReturnType<typeof spawnSync>;

  beforeAll(() => {
    project = makeProject(EVERY_CONSTRUCT_APP);
    result = spawnSync(CDKTF, ['synth'], { cwd: project, env: synthEnv(project), encoding: 'utf8', timeout: 180_000 });
  }, 200_000);

  test('succeeds without terraform on the PATH', () => {
    if (result.status !== 0) throw new Error(`cdktf synth failed (${result.status}):\n${String(result.stdout)}\n${String(result.stderr)}`);
    expect(String(result.stdout)).toContain('Generated Terraform code for the stacks: prod');
  });

  test('writes every construct with its spec, dependencies and bridge', () => {
    const outdir = path.join(project, 'cdktf.out');
    const desired = loadDesired(outdir, 'prod');
    expect(desired.resources).toHaveLength(20);
    const byAddress = new Map(desired.resources.map((resource) => [resource.address, resource]));
    expect(byAddress.get('prod/svc-role')).toMatchObject({
      type: 'ldap_static_role', id: 'ldap/static-role/svc',
      spec: { mount: 'ldap', name: 'svc', username: 'svc', rotation_period: '24h', skip_import_rotation: true },
    });
    expect(byAddress.get('prod/svc-role')!.dependsOn).toEqual(expect.arrayContaining(['prod/ldap', 'prod/ldap/mount']));
    expect(byAddress.get('prod/assoc')!.dependsOn).toEqual(expect.arrayContaining(['prod/dest-cloud1', 'prod/kv']));
    expect(byAddress.get('prod/dest-repohost')!.dependsOn).toEqual(['prod/gh-app']);
    expect(byAddress.get('prod/ldap')!.secrets.bindpass.reference).toEqual({ env: 'SF_LDAP_BINDPASS' });

    const config = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'prod', 'cdk.tf.json'), 'utf8'));
    expect(config.provider).toBeUndefined();
    const entries = config.resource.terraform_data as Record<string, any>;
    const block = Object.values(entries).find((candidate) => candidate['//']?.secretform?.address === 'prod/svc-role');
    expect(block.input).toEqual({ address: 'prod/svc-role', type: 'ldap_static_role', id: 'ldap/static-role/svc', digest: byAddress.get('prod/svc-role')!.digest });
    expect(block.provisioner).toBeUndefined();
    const step = entries.secretform;
    expect(step.input).toEqual({
      stack: 'prod',
      workdir: '../../..',
      apply: "npx --no-install secretform apply --no-synth --output 'cdktf.out' --stack 'prod' --auto-approve",
      destroy: "npx --no-install secretform destroy --no-synth --output 'cdktf.out' --stack 'prod' --auto-approve",
    });
    expect(step.lifecycle).toEqual({ create_before_destroy: true });
    // Terraform runs in cdktf.out/stacks/prod: the bridge's working directory from there is the project.
    expect(path.resolve(outdir, 'stacks', 'prod', step.input.workdir)).toBe(project);
    const ldapBlock = Object.values(entries).find((candidate) => candidate['//']?.secretform?.address === 'prod/ldap');
    const mountBlock = Object.entries(entries).find(([, candidate]) => candidate['//']?.secretform?.address === 'prod/ldap/mount')!;
    expect(ldapBlock.depends_on).toEqual([`terraform_data.${mountBlock[0]}`]);
  });

  test('writes no secret value anywhere in cdktf.out', () => {
    expectNoSecretIn(path.join(project, 'cdktf.out'));
  });

  test('secretform synth (the function) writes the same desired state', async () => {
    const chunks: string[] = [];
    const sink = { write: (chunk: unknown) => { chunks.push(String(chunk)); return true; } } as unknown as NodeJS.WritableStream;
    const synthesized = await synthesize({ cwd: project, output: 'out-api', env: synthEnv(project), stdout: sink, stderr: sink });
    expect(synthesized).toEqual({ outdir: path.join(project, 'out-api'), stacks: ['prod'] });
    expect(comparable(synthesized.outdir)).toEqual(comparable(path.join(project, 'cdktf.out')));
    expectNoSecretIn(synthesized.outdir);
  }, 120_000);

  test('secretform synth (the binary) writes cdktf.json\'s output and reports the stacks', () => {
    const bin = path.join(ROOT, 'bin', 'secretform.js');
    const run = spawnSync(process.execPath, [bin, 'synth', '--output', 'out-cli'], { cwd: project, env: synthEnv(project), encoding: 'utf8', timeout: 120_000 });
    if (run.status !== 0) throw new Error(`secretform synth failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
    expect(run.stdout).toContain('synthesized 1 stack to out-cli: prod');
    expect(comparable(path.join(project, 'out-cli'))).toEqual(comparable(path.join(project, 'cdktf.out')));
  }, 120_000);
});

describe('secretform synth failures', () => {
  test('an invalid construct fails with exit code 1 and every validation error', () => {
    const project = makeProject(`
import { App, TerraformStack } from ${CDKTF_MODULE};
import { LdapStaticRole, UserpassUser, SecretValue } from ${JSON.stringify(path.join(ROOT, 'src'))};
const app = new App();
const stack = new TerraformStack(app, 'prod');
new UserpassUser(stack, 'alice', { username: '-alice', password: SecretValue.unsafePlainText('plain-password-do-not-print') });
new LdapStaticRole(stack, 'svc', { backend: 'ldap', name: 'svc', username: 'svc', rotationPeriod: '1s' });
app.synth();
`);
    const bin = path.join(ROOT, 'bin', 'secretform.js');
    const run = spawnSync(process.execPath, [bin, 'synth'], { cwd: project, env: synthEnv(project), encoding: 'utf8', timeout: 120_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('prod/alice: username: received "-alice"; must not begin with "-"');
    expect(run.stderr).toContain('prod/alice: password: received (sensitive); SecretValue.unsafePlainText cannot be synthesized');
    expect(run.stderr).toContain('prod/svc: rotationPeriod: received "1s"; at least 5 seconds');
    expect(run.stderr).toMatch(/secretform synth: the app \(.*\) failed with exit code 1/);
    expect(`${run.stdout}${run.stderr}`).not.toContain('plain-password-do-not-print');
    expect(fs.existsSync(path.join(project, 'cdktf.out', 'manifest.json'))).toBe(false);
  }, 120_000);

  test('without cdktf.json or --app it says what to do', async () => {
    const empty = tempDir('secretform-empty-');
    tempDirs.push(empty);
    await expect(synthesize({ cwd: empty })).rejects.toThrow(`no app to run: pass --app "<command>" or set "app" in ${path.join(empty, 'cdktf.json')}`);
  });

  test('an app that does not call app.synth() is reported', async () => {
    const empty = tempDir('secretform-nosynth-');
    tempDirs.push(empty);
    const sink = { write: () => true } as unknown as NodeJS.WritableStream;
    await expect(synthesize({ cwd: empty, app: `${JSON.stringify(process.execPath)} -e "0"`, stdout: sink, stderr: sink }))
      .rejects.toThrow(/finished without writing .*manifest\.json: it must call app\.synth\(\)/);
  });
});
