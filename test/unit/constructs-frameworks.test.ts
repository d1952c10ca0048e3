/**
 * The same stack under both frameworks, in one process: cdktf 0.21 and CDK Terrain (cdktn 0.24) are both
 * loaded, and each app must be synthesized through its own framework (aspects, validations, resources), with
 * identical output.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as cdktf from 'cdktf';
import * as cdktn from 'cdktn';
import { LdapStaticRole, loadDesired, SecretsMount, UserpassUser, SecretValue } from '../../src';
import { frameworkOf, isStack } from '../../src/constructs/cdktf-adapter';
import { addEveryConstruct } from '../e2e/synth-fixture';
import { tempDir } from '../support/temp-dir';

const tempDirs: string[] = [];
afterAll(() => tempDirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

const FRAMEWORKS = { cdktf, cdktn } as const;
type Name = keyof typeof FRAMEWORKS;

function synthEvery(name: Name) {
  const { App, TerraformStack } = FRAMEWORKS[name];
  const outdir = tempDir(`secretform-${name}-`);
  tempDirs.push(outdir);
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'prod');
  addEveryConstruct(stack);
  app.synth();
  const config = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'prod', 'cdk.tf.json'), 'utf8'));
  return { outdir, stack, config };
}

describe('the same stack under cdktf 0.21 and cdktn 0.24', () => {
  const under = { cdktf: synthEvery('cdktf'), cdktn: synthEvery('cdktn') };

  test('each app is handled by the framework that built it', () => {
    expect(frameworkOf(under.cdktf.stack).name).toBe('cdktf');
    expect(frameworkOf(under.cdktn.stack).name).toBe('cdktn');
    expect(isStack(under.cdktf.stack) && isStack(under.cdktn.stack)).toBe(true);
  });

  test('synthesizes the same desired state and the same terraform resources (apart from the output directory)', () => {
    const desired = (name: Name) => JSON.stringify(loadDesired(under[name].outdir, 'prod').resources.map(({ secrets, ...rest }) => ({ ...rest, secrets: Object.keys(secrets) })));
    expect(loadDesired(under.cdktn.outdir, 'prod').resources).toHaveLength(20);
    expect(desired('cdktn')).toBe(desired('cdktf'));
    const resources = (name: Name) => {
      const copy = JSON.parse(JSON.stringify(under[name].config.resource));
      delete copy.terraform_data.secretform.input.workdir;
      copy.terraform_data.secretform.input.apply = copy.terraform_data.secretform.input.apply.replace(/--output '[^']*'/, '');
      copy.terraform_data.secretform.input.destroy = copy.terraform_data.secretform.input.destroy.replace(/--output '[^']*'/, '');
      return copy;
    };
    expect(resources('cdktn')).toEqual(resources('cdktf'));
    expect(under.cdktn.config.resource.terraform_data.secretform.lifecycle).toEqual({ create_before_destroy: true });
  });

  test.each(['cdktf', 'cdktn'] as const)('%s: invalid props and stack-level problems fail app.synth() naming the construct', (name) => {
    const { App, TerraformStack } = FRAMEWORKS[name];
    const outdir = tempDir(`secretform-${name}-`);
    tempDirs.push(outdir);
    const app = new App({ outdir });
    const stack = new TerraformStack(app, 'bad');
    new LdapStaticRole(stack, 'role', { backend: 'ldap', name: 'svc', username: 'svc', rotationPeriod: '2s' });
    new SecretsMount(stack, 'one', { path: 'kv', type: 'kv' });
    new SecretsMount(stack, 'two', { path: 'kv', type: 'kv' });
    expect(() => app.synth()).toThrow(/bad\/two: path: received "sys\/mounts\/kv"; bad\/one already manages sys\/mounts\/kv/);
    expect(() => app.synth()).toThrow(/bad\/role: rotationPeriod: received "2s"; at least 5 seconds/);
  });

  test('cdktn: a token in a prop is refused (tokens are recognised through the app\'s framework)', () => {
    const outdir = tempDir('secretform-cdktn-');
    tempDirs.push(outdir);
    const app = new cdktn.App({ outdir });
    const stack = new cdktn.TerraformStack(app, 'tok');
    const variable = new cdktn.TerraformVariable(stack, 'username', { type: 'string' });
    new UserpassUser(stack, 'user', { username: variable.stringValue, password: SecretValue.fromEnv('PASSWORD') });
    expect(() => app.synth()).toThrow(/tok\/user: username: received .*; a plain value: cdktf tokens/);
  });
});
