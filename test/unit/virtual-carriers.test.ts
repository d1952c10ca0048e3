// A construct's carrier (its plain terraform_data entry) is made without a construct where nothing but the file
// could tell (virtual-carrier.ts, StackSupport.finalise). The file must hold the very bytes the carrier construct
// gave, and every app that could tell the difference keeps the construct.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as cdktfModule from 'cdktf';
import { App, Aspects, Testing, TerraformResource, TerraformStack } from 'cdktf';
import * as cdktn from 'cdktn';
import { Construct, type IConstruct } from 'constructs';
import { configureDeployBridge, SecretsMount, SecretValue, UserpassUser } from '../../src';
import { logicalIdOf } from '../../src/constructs/carrier-id';
import { addEveryConstruct } from '../e2e/synth-fixture';
import { tempDir } from '../support/temp-dir';

const outdir = tempDir('secretform-virtual-');
afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

/** An aspect of the app's: it would visit every carrier construct below where it sits. */
const appAspect = { visit: (): void => undefined };

interface Made {
  readonly stack: TerraformStack;
  readonly text: string;
}

/** Synthesizes one stack `prod` built by `build` into the shared output directory (the bridge step names it) and reads its file. */
function synthesized(build: (stack: TerraformStack) => void, makeStack: (app: App) => TerraformStack = (app) => new TerraformStack(app, 'prod')): Made {
  fs.rmSync(outdir, { recursive: true, force: true });
  const app = new App({ outdir });
  const stack = makeStack(app);
  build(stack);
  app.synth();
  return { stack, text: fs.readFileSync(path.join(outdir, 'stacks', 'prod', 'cdk.tf.json'), 'utf8') };
}

/** The carrier constructs under `scope`. */
function carrierConstructs(scope: IConstruct): IConstruct[] {
  return scope.node.findAll().filter((node) => node.node.id === 'resource' && TerraformResource.isTerraformResource(node));
}

/** Every construct, a nested one, and the user's own resource between them. */
function everything(stack: TerraformStack): void {
  addEveryConstruct(stack);
  const own = new TerraformResource(stack, 'own', { terraformResourceType: 'terraform_data' });
  own.addOverride('input', { note: 'mine' });
  // A construct of the user's own holding one: its carrier's id leaves out `Default` (cdktf's scheme).
  const team = new Construct(stack, 'team');
  new UserpassUser(team, 'Default', { mount: 'userpass', username: 'default-user', passwordHash: SecretValue.fromEnv('DEFAULT_USER_HASH') });
}

describe('a stack of every construct', () => {
  const virtual = synthesized(everything);
  const constructs = synthesized((stack) => {
    Aspects.of(stack).add(appAspect);
    everything(stack);
  });

  test('has no carrier construct, and the same bytes as with carrier constructs', () => {
    expect(carrierConstructs(virtual.stack)).toEqual([]);
    expect(carrierConstructs(constructs.stack).length).toBeGreaterThan(10);
    expect(virtual.text).toBe(constructs.text);
  });

  test('the same bytes with the null_resource bridge', () => {
    const nullVirtual = synthesized((stack) => {
      configureDeployBridge(stack, { resource: 'null_resource' });
      everything(stack);
    });
    const nullConstructs = synthesized((stack) => {
      configureDeployBridge(stack, { resource: 'null_resource' });
      Aspects.of(stack).add(appAspect);
      everything(stack);
    });
    expect(carrierConstructs(nullVirtual.stack)).toEqual([]);
    expect(nullVirtual.text).toContain('"null_resource"');
    expect(nullVirtual.text).toBe(nullConstructs.text);
  });
});

test('an aspect of the app\'s on a scope keeps the carrier constructs of the constructs below it only', () => {
  let inside: Construct | undefined;
  const build = (withAspect: boolean) => (stack: TerraformStack) => {
    new UserpassUser(stack, 'outside', { mount: 'userpass', username: 'outside', passwordHash: SecretValue.fromEnv('OUTSIDE_HASH') });
    inside = new SecretsMount(stack, 'inside', { path: 'inside', type: 'kv' });
    if (withAspect) Aspects.of(inside).add(appAspect);
    new UserpassUser(inside, 'nested', { mount: 'userpass', username: 'nested', passwordHash: SecretValue.fromEnv('NESTED_HASH') });
  };
  const mixed = synthesized(build(true));
  expect(carrierConstructs(mixed.stack).map((node) => node.node.path)).toEqual(['prod/inside/nested/resource', 'prod/inside/resource']);
  const virtual = synthesized(build(false));
  expect(carrierConstructs(virtual.stack)).toEqual([]);
  expect(mixed.text).toBe(virtual.text);
});

test('a stack that names its elements itself keeps the carrier constructs, named its way', () => {
  class Named extends TerraformStack {
    override allocateLogicalId(element: Parameters<TerraformStack['allocateLogicalId']>[0]): string {
      return `named_${super.allocateLogicalId(element).replace(/_[0-9A-F]{8}$/, '')}`;
    }
  }
  const made = synthesized((stack) => {
    new UserpassUser(stack, 'ci', { mount: 'userpass', username: 'ci', passwordHash: SecretValue.fromEnv('CI_HASH') });
  }, (app) => new Named(app, 'prod'));
  expect(carrierConstructs(made.stack)).toHaveLength(1);
  const config = JSON.parse(made.text) as { resource: { terraform_data: Record<string, unknown> } };
  expect(Object.keys(config.resource.terraform_data).sort()).toEqual(['named_ci_resource', 'named_secretform']);
});

test('a synthesizer of the app\'s own writes carrier constructs', () => {
  const made = synthesized((stack) => {
    // The app's own method (cdktf's writer still writes the file): secretform's writer is not used.
    const synthesizer = (stack as unknown as { synthesizer: { synthesize(session: unknown): void } }).synthesizer;
    const stock = synthesizer.synthesize.bind(synthesizer);
    synthesizer.synthesize = (session) => stock(session);
    new UserpassUser(stack, 'ci', { mount: 'userpass', username: 'ci', passwordHash: SecretValue.fromEnv('CI_HASH') });
  });
  expect(carrierConstructs(made.stack).map((node) => node.node.path)).toEqual(['prod/ci/resource']);
  expect(made.text).toContain('"ci_resource_');
});

test('Testing.synth sees carrier constructs', () => {
  const app = Testing.app({ outdir: tempDir('secretform-virtual-testing-') });
  try {
    const stack = new TerraformStack(app, 'prod');
    const user = new UserpassUser(stack, 'ci', { mount: 'userpass', username: 'ci', passwordHash: SecretValue.fromEnv('CI_HASH') });
    const text = Testing.synth(stack);
    expect(user.node.tryFindChild('resource')).toBeDefined();
    expect(text).toContain('"ci_resource_');
  } finally {
    fs.rmSync(app.outdir, { recursive: true, force: true });
  }
});

test('a second synth writes the same bytes, also after a synth with carrier constructs', () => {
  fs.rmSync(outdir, { recursive: true, force: true });
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'prod');
  everything(stack);
  const file = path.join(outdir, 'stacks', 'prod', 'cdk.tf.json');
  app.synth();
  const first = fs.readFileSync(file, 'utf8');
  expect(carrierConstructs(stack)).toEqual([]);
  app.synth();
  expect(fs.readFileSync(file, 'utf8')).toBe(first);
  // Testing.synth makes the carriers as constructs (its configuration is the app's to read); a later synth keeps them.
  Testing.synth(stack);
  expect(carrierConstructs(stack).length).toBeGreaterThan(10);
  app.synth();
  expect(fs.readFileSync(file, 'utf8')).toBe(first);
});

test('a stack override of a resource keeps the carrier constructs, and the override', () => {
  const made = synthesized((stack) => {
    new UserpassUser(stack, 'ci', { mount: 'userpass', username: 'ci', passwordHash: SecretValue.fromEnv('CI_HASH') });
    // The carrier's logical id, as cdktf names it; cdktf merges the stack's override into that entry.
    const carrierId = logicalIdOf(['ci', 'resource']);
    stack.addOverride(`resource.terraform_data.${carrierId}.lifecycle.prevent_destroy`, true);
  });
  expect(carrierConstructs(made.stack)).toHaveLength(1);
  const config = JSON.parse(made.text) as { resource: { terraform_data: Record<string, { lifecycle?: unknown; '//'?: { metadata?: unknown; secretform?: unknown } }> } };
  const [entry] = Object.entries(config.resource.terraform_data).filter(([id]) => id.startsWith('ci_resource_'));
  expect(entry[1].lifecycle).toEqual({ prevent_destroy: true });
  expect(entry[1]['//']?.metadata).toEqual({ path: 'prod/ci/resource', uniqueId: entry[0] });
  expect(entry[1]['//']?.secretform).toBeDefined();
});

test('a child of the carrier\'s id under a construct still fails the synth, as the carrier construct made it fail', () => {
  fs.rmSync(outdir, { recursive: true, force: true });
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'prod');
  const user = new UserpassUser(stack, 'ci', { mount: 'userpass', username: 'ci', passwordHash: SecretValue.fromEnv('CI_HASH') });
  new TerraformResource(user, 'resource', { terraformResourceType: 'terraform_data' });
  expect(() => app.synth()).toThrow(/There is already a Construct with name 'resource'/);
});

test('cdktn keeps carrier constructs (its own synthesizer writes the file), with the same entries as cdktf\'s virtual ones', () => {
  const entriesUnder = (framework: typeof cdktn | typeof cdktfModule) => {
    const dir = tempDir('secretform-virtual-framework-');
    try {
      const app = new framework.App({ outdir: dir });
      const stack = new framework.TerraformStack(app, 'prod');
      const user = new UserpassUser(stack, 'ci', { mount: 'userpass', username: 'ci', passwordHash: SecretValue.fromEnv('CI_HASH') });
      app.synth();
      const config = JSON.parse(fs.readFileSync(path.join(dir, 'stacks', 'prod', 'cdk.tf.json'), 'utf8')) as { resource: { terraform_data: Record<string, unknown> } };
      const { secretform: step, ...entries } = config.resource.terraform_data;
      expect(step).toBeDefined();
      return { construct: user.node.tryFindChild('resource') !== undefined, entries };
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
  const underCdktn = entriesUnder(cdktn);
  const underCdktf = entriesUnder(cdktfModule);
  expect(underCdktn.construct).toBe(true);
  expect(underCdktf.construct).toBe(false);
  expect(underCdktf.entries).toEqual(underCdktn.entries);
});
