/**
 * The package as users get it: `npm pack`, then installed from the tarball (everything else from the npm
 * registry) into two fresh apps, one on cdktf 0.21 with constructs 10.4.2 (the version cdktf-cli 0.21 pins) and
 * one on cdktn 0.24 with constructs 10.7.x, each synthesized with `npx secretform synth`. The tarball is packed
 * once and both installs run at the same time.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ok, packRepository, ROOT } from '../support/package-tarball';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(400_000);

const CDKTF_APP = `
const { App, TerraformStack } = require('cdktf');
const { AuthMount, UserpassUser, SecretValue } = require('secretform');
const app = new App();
const stack = new TerraformStack(app, 'users');
const mount = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
new UserpassUser(stack, 'ci', { mount, username: 'ci-bot', password: SecretValue.fromEnv('CI_PASSWORD'), tokenTtl: '1h' });
app.synth();
`;

/** The cdktn app is an ES module: named imports from the CommonJS package and its testing entry. */
const CDKTN_APP = `
import { App, TerraformStack } from 'cdktn';
import { AuthMount, UserpassUser, SecretValue } from 'secretform';
import { SecretformTemplate } from 'secretform/testing';
const app = new App();
const stack = new TerraformStack(app, 'users');
const mount = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
new UserpassUser(stack, 'ci', { mount, username: 'ci-bot', password: SecretValue.fromEnv('CI_PASSWORD'), tokenTtl: '1h' });
SecretformTemplate.fromStack(stack).resourceCountIs('userpass_user', 1);
app.synth();
`;

/** Type-checks against the shipped declarations with only cdktn installed (no cdktf types anywhere). */
const CDKTN_TYPES = `
import { App, TerraformOutput, TerraformStack } from 'cdktn';
import { AuthMount, desiredFromStack, SecretValue, UserpassUser } from 'secretform';
import { SecretformTemplate } from 'secretform/testing';
const stack = new TerraformStack(new App(), 'users');
const mount = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
const user = new UserpassUser(stack, 'ci', { mount, username: 'ci-bot', password: SecretValue.fromEnv('CI_PASSWORD') });
new TerraformOutput(stack, 'id', { value: user.resourceId });
const count: number = desiredFromStack(stack).resources.length + SecretformTemplate.fromStack(stack).resources().length;
export { count };
`;

let workdir: string;
let tarball: string;

beforeAll(async () => {
  workdir = tempDir('secretform-pack-');
  // dist/ is built by jest's global setup; packing must not build again.
  tarball = await packRepository(workdir);
});

afterAll(() => {
  if (workdir) fs.rmSync(workdir, { recursive: true, force: true });
});

function makeApp(name: string, dependencies: Record<string, string>, files: Record<string, string>, app: string): string {
  const dir = path.join(workdir, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, private: true, dependencies: { secretform: `file:${tarball}`, ...dependencies } }, null, 2));
  fs.writeFileSync(path.join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app }));
  for (const [file, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), content);
  return dir;
}

test('the packed tarball ships LICENSE, docs, examples, an exports map, sources for its maps, and no build info', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
  expect(manifest.exports['./testing']).toEqual({ types: './dist/testing/index.d.ts', default: './dist/testing/index.js' });
  // The Node versions CI runs (.ci/run: the suite on 20, an end-to-end subset on 22 and 24).
  expect(manifest.engines.node).toBe('^20.18.1 || ^22.0.0 || >=24.0.0');
  expect(manifest.dependencies.cdktf).toBeUndefined();
  expect(manifest.dependencies.constructs).toBeUndefined();
  expect(manifest.peerDependenciesMeta).toEqual(expect.objectContaining({ cdktf: { optional: true }, cdktn: { optional: true } }));
  expect(manifest.peerDependencies.constructs).toBeDefined();
  expect(fs.statSync(tarball).size).toBeGreaterThan(10_000);
});

test('installing the tarball runs no lifecycle script: none declared, and npm names no secretform script to approve', async () => {
  const packed = path.join(workdir, 'unpacked');
  fs.mkdirSync(packed);
  await ok('tar', ['xzf', tarball, '-C', packed], workdir);
  const manifest = JSON.parse(fs.readFileSync(path.join(packed, 'package', 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts?.[script]).toBeUndefined();
  expect(fs.existsSync(path.join(packed, 'package', 'dist', 'index.js'))).toBe(true);

  // A plain install, scripts allowed, as a user runs it: npm 11 lists packages whose install scripts it would run.
  const dir = path.join(workdir, 'plain-install');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'plain-install', private: true }));
  const output = await ok('npm', ['install', '--no-audit', '--no-fund', tarball], dir);
  expect(output).not.toMatch(/secretform@[^\s]* \((preinstall|install|postinstall|prepare)/);
  expect(fs.existsSync(path.join(dir, 'node_modules', 'secretform', 'dist', 'index.js'))).toBe(true);
});

test('installs into a cdktf 0.21 + constructs 10.4.2 app and a cdktn 0.24 app, and both synthesize with npx secretform synth', async () => {
  const cdktfApp = makeApp('cdktf-app', { cdktf: '0.21.0', constructs: '10.4.2' }, { 'main.js': CDKTF_APP }, 'node main.js');
  const cdktnApp = makeApp('cdktn-app', { cdktn: '^0.24.0', constructs: '~10.7.2' }, { 'main.mjs': CDKTN_APP, 'types.ts': CDKTN_TYPES }, 'node main.mjs');
  await Promise.all([cdktfApp, cdktnApp].map((dir) => ok('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], dir)));

  const installed = path.join(cdktfApp, 'node_modules', 'secretform');
  for (const file of ['LICENSE', 'README.md', 'docs/cli.md', 'examples/platform/main.ts', 'dist/testing/index.js']) expect(fs.existsSync(path.join(installed, file))).toBe(true);
  expect(fs.existsSync(path.join(installed, 'dist', '.tsbuildinfo'))).toBe(false);
  const map = JSON.parse(fs.readFileSync(path.join(installed, 'dist', 'index.js.map'), 'utf8')) as { sources: string[] };
  for (const source of map.sources) expect(fs.existsSync(path.resolve(installed, 'dist', source))).toBe(true);
  // One copy of constructs and of the framework: the app's.
  expect(fs.existsSync(path.join(installed, 'node_modules', 'constructs'))).toBe(false);
  expect(fs.existsSync(path.join(installed, 'node_modules', 'cdktf'))).toBe(false);
  expect(fs.existsSync(path.join(cdktnApp, 'node_modules', 'cdktf'))).toBe(false);
  expect(JSON.parse(fs.readFileSync(path.join(cdktfApp, 'node_modules', 'constructs', 'package.json'), 'utf8')).version).toBe('10.4.2');

  for (const dir of [cdktfApp, cdktnApp]) {
    const output = await ok('npx', ['--no-install', 'secretform', 'synth'], dir);
    expect(output).toContain('synthesized 1 stack to cdktf.out: users');
    const config = JSON.parse(fs.readFileSync(path.join(dir, 'cdktf.out', 'stacks', 'users', 'cdk.tf.json'), 'utf8'));
    const entries = Object.values(config.resource.terraform_data as Record<string, { '//'?: { secretform?: { address: string; spec: unknown } } }>);
    expect(entries.flatMap((entry) => (entry['//']?.secretform ? [entry['//'].secretform.address] : [])).sort()).toEqual(['users/ci', 'users/userpass']);
  }

  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  await ok(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'node16', '--moduleResolution', 'node16', '--target', 'es2022', '--skipLibCheck', '--types', 'node', '--typeRoots', path.join(ROOT, 'node_modules', '@types'), 'types.ts'], cdktnApp);
});
