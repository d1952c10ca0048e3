// Synth adds each construct's synthesized spec to the stack's configuration after cdktf has merged and resolved it
// (stack.ts), and gathers the carriers' override keys apart from cdktf's quadratic merge (override-keys.ts). Both
// must leave the file exactly as cdktf would have written it: the spec only when resolution would return it
// unchanged (inert-value.ts, checked here against cdktf's own resolution), the keys in cdktf's order.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, Aspects, DefaultTokenResolver, StringConcat, TerraformResource, TerraformStack, Token, Tokenization } from 'cdktf';
import fc from 'fast-check';
import { AuthMount, SecretsMount, SecretValue, UserpassUser } from '../../src';
import { onStackConfiguration, tokenRules } from '../../src/constructs/cdktf-adapter';
import { DeferredOverrides } from '../../src/constructs/deferred-overrides';
import { isInert } from '../../src/constructs/inert-value';
import { tempDir } from '../support/temp-dir';

// cdktf's own JSON writer (sorted keys), as its synthesizer writes cdk.tf.json.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const stableStringify = require(require.resolve('json-stable-stringify', { paths: [path.dirname(require.resolve('cdktf'))] })) as (value: unknown, options?: { space?: number }) => string | undefined;

const tempDirs: string[] = [];
afterAll(() => tempDirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function newApp(): { app: App; outdir: string } {
  const outdir = tempDir('secretform-deferred-');
  tempDirs.push(outdir);
  return { app: new App({ outdir }), outdir };
}

describe('an inert value is what cdktf resolution returns unchanged', () => {
  const { app } = newApp();
  const stack = new TerraformStack(app, 'scope');
  const rules = tokenRules(stack);
  const resolve = (value: unknown) => Tokenization.resolve(value, { scope: stack, preparing: false, resolver: new DefaultTokenResolver(new StringConcat()) }) as unknown;

  const tokens = [Token.asString({ resolve: () => 'resolved' }), Token.asList({ resolve: () => ['a'] })[0], Token.STRING_MAP_TOKEN_VALUE, Token.ANY_MAP_TOKEN_VALUE];
  const numberToken = Token.asNumber({ resolve: () => 7 });
  const fragment = fc.constantFrom('${', '#{', '&{', '%{', '}', '$${x}', '${var.x}', 'e+289', '1e5', '2e8a', String(numberToken), 'sha256:18232e86bb', '\u0000', '\u{1F600}', ...tokens);
  const text = fc.array(fc.oneof(fc.string(), fragment), { maxLength: 4 }).map((parts) => parts.join(''));
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      text,
      fc.double(),
      fc.integer(),
      fc.constant(numberToken),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(text, tie('value'), { maxKeys: 4 }),
    ),
  }));

  test('whatever an inert value holds, resolution gives the same JSON', () => {
    fc.assert(
      fc.property(value, (candidate) => {
        if (!isInert(candidate, rules)) return;
        expect(stableStringify(resolve(candidate), { space: 2 })).toBe(stableStringify(candidate, { space: 2 }));
      }),
      { numRuns: 3000 },
    );
  });

  test('tokens, their markers, holes and objects with methods are not inert', () => {
    for (const token of [...tokens, numberToken, { nested: [tokens[0]] }, { [tokens[0]]: 'key' }, [1, undefined, 2], new Array<number>(2), new Date(0), { resolve: () => 1 }, 'cost ${var.x}']) {
      expect({ token, inert: isInert(token, rules) }).toEqual({ token, inert: false });
    }
    expect(isInert({ spec: { name: 'a', ttl: 3600, list: ['x', 'y'], on: true, none: null, skipped: undefined }, digest: 'sha256:18232e86bb' }, rules)).toBe(true);
  });
});

describe('a stack with deferred specs and the user\'s own resources', () => {
  function mixedStack(stack: TerraformStack) {
    const userpass = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
    // The user's own terraform_data between secretform constructs, with overrides of its own.
    const own = new TerraformResource(stack, 'own', { terraformResourceType: 'terraform_data' });
    own.addOverride('input', { note: 'mine' });
    own.addOverride('lifecycle.ignore_changes', ['input']);
    // A description terraform would interpolate: this spec is not inert and goes through cdktf as before.
    const apps = new SecretsMount(stack, 'apps', { path: 'apps', type: 'kv', options: { version: '2' }, description: 'cost ${var.team}' });
    const user = new UserpassUser(stack, 'ci', { mount: userpass, username: 'ci', password: SecretValue.fromEnv('CI_PASSWORD'), tokenPolicies: ['deploy'] });
    const after = new TerraformResource(stack, 'after', { terraformResourceType: 'terraform_data' });
    after.addOverride('triggers_replace', ['x']);
    return { userpass, apps, user };
  }
  const { app, outdir } = newApp();
  const stack = new TerraformStack(app, 'mixed');
  const { userpass, apps, user } = mixedStack(stack);
  app.synth();
  const config = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'mixed', 'cdk.tf.json'), 'utf8')) as {
    '//': { metadata: { overrides: Record<string, string[]> } };
    resource: { terraform_data: Record<string, { '//': { secretform?: { address: string; spec: Record<string, unknown> } } }> };
  };
  const blocks = Object.values(config.resource.terraform_data);
  const specOf = (address: string) => blocks.find((block) => block['//'].secretform?.address === address)?.['//'].secretform;

  test('the metadata lists every element\'s override keys in element order, the carriers\' included', () => {
    // What cdktf lists itself: the same stack in an app that writes HCL, where secretform defers nothing and its
    // carriers are cdktf's own class, so every value goes through cdktf's `addOverride` and metadata merge.
    const hclApp = new App({ outdir: newApp().outdir, hclOutput: true });
    const hclStack = new TerraformStack(hclApp, 'mixed');
    mixedStack(hclStack);
    hclApp.synth();
    const expected = (hclStack.toTerraform() as typeof config)['//'].metadata.overrides.terraform_data;
    expect(config['//'].metadata.overrides.terraform_data).toEqual(expected);
    expect(expected).toEqual(expect.arrayContaining(['input', '//', 'depends_on', 'lifecycle', 'triggers_replace']));
    // The carriers whose values are all inert are virtual (no construct: virtual-carrier.ts); the one whose spec
    // cdktf must resolve is a construct, and only that value went through cdktf.
    expect(user.node.tryFindChild('resource')).toBeUndefined();
    const appsCarrier = apps.node.findChild('resource') as unknown as { rawOverrides: Record<string, unknown> };
    expect(Object.keys(appsCarrier.rawOverrides)).toEqual(['//']);
  });

  test('with carrier constructs (an aspect of the app\'s on the stack), the keys and the values are the same', () => {
    // An aspect of the app's would visit every carrier: each is a construct then, its inert values deferred.
    const { app: withAspect, outdir: aspectOut } = newApp();
    const aspectStack = new TerraformStack(withAspect, 'mixed');
    Aspects.of(aspectStack).add({ visit: () => undefined });
    const made = mixedStack(aspectStack);
    withAspect.synth();
    const carrier = made.user.node.findChild('resource') as unknown as { rawOverrides: Record<string, unknown> };
    // The carriers' values were deferred: cdktf holds no placeholder for them.
    expect(Object.keys(carrier.rawOverrides)).toEqual([]);
    const aspectConfig = JSON.parse(fs.readFileSync(path.join(aspectOut, 'stacks', 'mixed', 'cdk.tf.json'), 'utf8')) as typeof config;
    expect(aspectConfig['//'].metadata.overrides).toEqual(config['//'].metadata.overrides);
    // The bridge step names its own output directory; everything else is the same.
    const withoutStep = (value: typeof config) => ({ ...value, resource: { ...value.resource, terraform_data: { ...value.resource.terraform_data, secretform: undefined } } });
    expect(withoutStep(aspectConfig)).toEqual(withoutStep(config));
  });

  test('every construct carries its full spec, inert or not', () => {
    expect(specOf(userpass.address)?.spec).toEqual({ path: 'userpass', type: 'userpass' });
    expect(specOf(apps.address)?.spec).toMatchObject({ path: 'apps', description: 'cost ${var.team}', options: { version: '2' } });
    expect(specOf(user.address)?.spec).toMatchObject({ username: 'ci', mount: 'userpass', token_policies: ['deploy'] });
    expect(specOf(`${apps.address}`)).toBeDefined();
    expect(blocks.filter((block) => block['//'].secretform !== undefined)).toHaveLength(3);
  });
});

describe('deferred override values', () => {
  // The same stack twice: once with every value set through cdktf, once through DeferredOverrides (inert values
  // deferred, the others through cdktf); the two files must hold the same bytes.
  function synthesized(deferred: boolean): string {
    const { app, outdir } = newApp();
    const stack = new TerraformStack(app, 'deferred');
    const overrides = new DeferredOverrides(deferred ? tokenRules(stack) : undefined);
    if (deferred) onStackConfiguration(stack, (configuration) => overrides.complete(configuration));
    const values: Array<[string, unknown]> = [
      ['input', { address: 'a/b', digest: 'sha256:18232e86bb', id: 'auth/userpass/users/ci', type: 'userpass_user' }],
      ['//.secretform', { spec: { name: 'x', list: [1, 2, { deep: true }] }, version: 1 }],
      ['depends_on', ['terraform_data.first']],
      ['triggers_replace', '${timestamp()}'],
      ['lifecycle.ignore_changes', ['input']],
    ];
    const first = new TerraformResource(stack, 'first', { terraformResourceType: 'terraform_data' });
    first.addOverride('input', { own: 'value' });
    for (const id of ['second', 'third']) {
      const element = new TerraformResource(stack, id, { terraformResourceType: 'terraform_data' });
      for (const [path, value] of values) overrides.set(element, path, value);
    }
    app.synth();
    return fs.readFileSync(path.join(outdir, 'stacks', 'deferred', 'cdk.tf.json'), 'utf8');
  }

  test('a stack with values deferred is written exactly as cdktf writes it', () => {
    const written = synthesized(true);
    expect(written).toBe(synthesized(false));
    expect(JSON.parse(written)).toMatchObject({
      resource: { terraform_data: { third: { depends_on: ['terraform_data.first'], input: { id: 'auth/userpass/users/ci' }, lifecycle: { ignore_changes: ['input'] } } } },
    });
  });

  test('a value set again replaces the deferred one, also when it goes through cdktf', () => {
    const { app, outdir } = newApp();
    const stack = new TerraformStack(app, 'again');
    const overrides = new DeferredOverrides(tokenRules(stack));
    onStackConfiguration(stack, (configuration) => overrides.complete(configuration));
    const element = new TerraformResource(stack, 'element', { terraformResourceType: 'terraform_data' });
    overrides.set(element, 'input', { first: 1 });
    overrides.set(element, 'input', { second: '${var.x}' });
    overrides.set(element, 'triggers_replace', ['${var.y}']);
    overrides.set(element, 'triggers_replace', ['plain']);
    app.synth();
    const config = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'again', 'cdk.tf.json'), 'utf8')) as { resource: { terraform_data: { element: Record<string, unknown> } } };
    expect(config.resource.terraform_data.element).toMatchObject({ input: { second: '${var.x}' }, triggers_replace: ['plain'] });
  });
});
