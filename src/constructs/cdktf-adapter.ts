/**
 * The one place that finds the CDK framework. secretform never imports `cdktf` or `cdktn` statically: both are
 * optional peer dependencies, and an app loads exactly one of them. The adapter takes the copy the app loaded
 * (the one whose classes built the app's construct tree), so aspects, validations and resources are all
 * registered through the framework that will synthesize them. Types here are structural: the `.d.ts` files
 * secretform ships mention neither framework, so a cdktn app type-checks without cdktf installed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { IConstruct } from 'constructs';
import type { TokenRules } from './inert-value';

/** The framework packages secretform works with, preferred in this order when nothing is loaded yet. */
export const FRAMEWORK_PACKAGES = ['cdktn', 'cdktf'] as const;
export type FrameworkName = (typeof FRAMEWORK_PACKAGES)[number];

/** An element of the synthesized configuration (a resource): what secretform sets on it. */
export interface TerraformElementLike extends IConstruct {
  readonly friendlyUniqueId: string;
  readonly terraformResourceType: string;
  addOverride(path: string, value: unknown): void;
}

/** What secretform uses of a framework module (the same in cdktf 0.21 and cdktn 0.24). */
interface FrameworkModule {
  App: { of(construct: IConstruct): { readonly outdir: string; readonly hclOutput?: boolean }; prototype: object };
  TerraformStack: { of(construct: IConstruct): IConstruct; isStack(x: unknown): boolean; prototype: object };
  Aspects: { of(construct: IConstruct): { add(aspect: Aspect): void; readonly all: readonly Aspect[] } };
  Token: { isUnresolved(value: unknown): boolean; readonly STRING_MAP_TOKEN_VALUE: string; readonly ANY_MAP_TOKEN_VALUE: string };
  TerraformResource: TerraformResourceClass;
}

interface Aspect {
  visit(node: IConstruct): void;
}

/** The framework's generic resource class. */
export type TerraformResourceClass = new (
  scope: IConstruct,
  id: string,
  config: { terraformResourceType: string; terraformGeneratorMetadata?: { providerName: string } },
) => TerraformElementLike;

export interface Framework {
  readonly name: FrameworkName;
  /** Absolute path of the package's entry file. */
  readonly file: string;
  readonly module: FrameworkModule;
}

export class FrameworkNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FrameworkNotFoundError';
  }
}

/** Frameworks already loaded in this process (by the app), found in the CommonJS module cache. */
function loadedFrameworks(): Framework[] {
  const found: Framework[] = [];
  for (const file of Object.keys(require.cache)) {
    const match = /[\\/]node_modules[\\/](cdktf|cdktn)[\\/]lib[\\/]index\.js$/.exec(file);
    if (!match) continue;
    const loaded = require.cache[file]?.exports as FrameworkModule | undefined;
    if (loaded && typeof loaded.TerraformResource === 'function') found.push({ name: match[1] as FrameworkName, file, module: loaded });
  }
  return found;
}

/** Directories an app's `require` would search from: its entry point, the working directory, and ours. */
function searchBases(): string[] {
  const bases = [require.main?.filename, process.argv[1]]
    .filter((file): file is string => typeof file === 'string' && file !== '')
    .map((file) => path.dirname(path.resolve(file)));
  return [...new Set([...bases, process.cwd(), __dirname])];
}

/** Resolves and loads the framework the app would get, when none is loaded yet. */
function resolvableFramework(): Framework | undefined {
  for (const name of FRAMEWORK_PACKAGES) {
    let file: string;
    try {
      file = require.resolve(name, { paths: searchBases() });
    } catch {
      continue;
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return { name, file, module: require(file) as FrameworkModule };
  }
  return undefined;
}

/** Whether `construct`'s root app or stack was built from this framework's classes (prototype identity). */
function built(framework: Framework, construct: IConstruct): boolean {
  const { App, TerraformStack } = framework.module;
  const chainHas = (value: object, proto: object): boolean => {
    for (let current: object | null = Object.getPrototypeOf(value) as object | null; current; current = Object.getPrototypeOf(current) as object | null) {
      if (current === proto) return true;
    }
    return false;
  };
  const root = construct.node.root;
  if (chainHas(root, App.prototype)) return true;
  return construct.node.scopes.some((scope) => chainHas(scope, TerraformStack.prototype));
}

const byRoot = new WeakMap<IConstruct, Framework>();

/**
 * The framework that built `construct`'s tree: of the copies loaded in this process, the one whose `App` or
 * `TerraformStack` class made the tree; else the one the app can resolve (`cdktn` first, then `cdktf`).
 */
export function frameworkOf(construct: IConstruct): Framework {
  const root = construct.node.root;
  const cached = byRoot.get(root);
  if (cached) return cached;
  const loaded = loadedFrameworks();
  const framework = loaded.find((candidate) => built(candidate, construct)) ?? loaded[0] ?? resolvableFramework();
  if (!framework) {
    throw new FrameworkNotFoundError(
      `secretform needs the app's CDK framework: install cdktf (^0.21) or cdktn (^0.24) in the app (npm install cdktf constructs), ` +
      `and build the stack with it`,
    );
  }
  byRoot.set(root, framework);
  return framework;
}

/** The stack a construct belongs to; throws naming the construct when it is not inside one. */
export function stackOf(construct: IConstruct): IConstruct {
  return frameworkOf(construct).module.TerraformStack.of(construct);
}

/** Whether a construct is a stack of either framework (by their shared `Symbol.for` marker, never instanceof). */
export function isStack(construct: unknown): construct is IConstruct {
  return typeof construct === 'object' && construct !== null && Symbol.for('cdktf/TerraformStack') in construct;
}

/**
 * Sets a value in the stack's own configuration (`cdk.tf.json` at the top level), as cdktf's
 * `TerraformStack.addOverride` does; used for what belongs to the stack rather than to one resource.
 */
export function addStackOverride(stack: IConstruct, path: string, value: unknown): void {
  (stack as unknown as { addOverride(path: string, value: unknown): void }).addOverride(path, value);
}

/** The top-level keys the app set on the stack's own configuration with `TerraformStack.addOverride`. */
export function stackOverrideKeys(stack: IConstruct): string[] {
  const overrides = (stack as unknown as { rawOverrides?: unknown }).rawOverrides;
  return typeof overrides === 'object' && overrides !== null ? Object.keys(overrides) : [];
}

/** The output directory of the app a construct belongs to. */
export function appOutdir(construct: IConstruct): string {
  return frameworkOf(construct).module.App.of(construct).outdir;
}

/** Runs `finalise` once per synth of the stack, after every construct exists and before validation. */
export function onStackSynth(stack: IConstruct, finalise: () => void): void {
  const aspect: Aspect = {
    visit(node: IConstruct) {
      if (node === stack) finalise();
    },
  };
  ownAspects.add(aspect);
  frameworkOf(stack).module.Aspects.of(stack).add(aspect);
}

/** The aspects secretform adds (`onStackSynth`). */
const ownAspects = new WeakSet<Aspect>();

/**
 * Whether a construct of the tree of `scope` holds an aspect of the app's own (one not added by secretform): a
 * test made once per tree, asked of every scope of every construct.
 */
export function appAspectsTest(scope: IConstruct): (node: IConstruct) => boolean {
  const { Aspects } = frameworkOf(scope).module;
  return (node) => Aspects.of(node).all.some((aspect) => !ownAspects.has(aspect));
}

/**
 * Whether the stack builds its configuration and names its elements as cdktf's `TerraformStack` does: none of
 * `toTerraform`, `getLogicalId`, `allocateLogicalId` is the stack class's own (carrier-id.ts makes cdktf's ids).
 */
export function usesFrameworkNaming(stack: IConstruct): boolean {
  const base = frameworkOf(stack).module.TerraformStack.prototype as Record<string, unknown>;
  const own = Object.getPrototypeOf(stack) as Record<string, unknown>;
  return ['toTerraform', 'getLogicalId', 'allocateLogicalId'].every((method) => own[method] === base[method]);
}

/**
 * Calls `complete` with the configuration the framework built for `stack` (what its `toTerraform()` returns:
 * every element merged, tokens resolved) before the framework writes it to `cdk.tf.json`. `complete` may add
 * plain JSON values to it: values that token resolution would return unchanged (inert-value.ts), so the file
 * holds exactly what it would have held had they gone through the framework's merging and resolution, which
 * cost far more (cdktf walks every value of every element several times).
 */
export function onStackConfiguration(stack: IConstruct, complete: (configuration: Record<string, unknown>) => void): void {
  type ToTerraform = (this: unknown) => Record<string, unknown>;
  // The stack's own method (its class's, or a subclass's), called with the stack as `this`.
  const original = (stack as unknown as { toTerraform: ToTerraform }).toTerraform;
  Object.defineProperty(stack, 'toTerraform', {
    configurable: true,
    writable: true,
    value: function toTerraform(this: unknown): Record<string, unknown> {
      const configuration = original.call(this);
      complete(configuration);
      return configuration;
    },
  });
}

/** Whether the app writes HCL (`new App({ hclOutput: true })`): then `toTerraform()` is not what is written. */
export function writesHcl(construct: IConstruct): boolean {
  return frameworkOf(construct).module.App.of(construct).hclOutput === true;
}

/**
 * Whether `synthesize` is cdktf's own stack synthesizer method, writing JSON (not HCL) with
 * `json-stable-stringify` 1.x: the writer stable-json-text.ts makes the same bytes of. Any other synthesizer (an
 * app's own, cdktn's, a later cdktf's with another writer) keeps writing its file itself.
 */
export function writesStableJson(stack: IConstruct, synthesizer: object, synthesize: unknown): boolean {
  const framework = frameworkOf(stack);
  if (framework.name !== 'cdktf' || (synthesizer as { hclOutput?: unknown }).hclOutput === true) return false;
  let known = stockWriters.get(framework.file);
  if (known === undefined) {
    known = stockWriter(framework.file);
    stockWriters.set(framework.file, known);
  }
  return known.synthesize !== undefined && synthesize === known.synthesize;
}

/** Per framework entry file: its stack synthesizer's method, when its JSON writer is `json-stable-stringify` 1.x. */
const stockWriters = new Map<string, { readonly synthesize: unknown }>();

function stockWriter(frameworkFile: string): { readonly synthesize: unknown } {
  const synthesizerFile = path.join(path.dirname(frameworkFile), 'synthesize', 'synthesizer.js');
  // Loaded with the framework (its stacks make their synthesizer from it); never loaded here.
  const loaded = require.cache[synthesizerFile]?.exports as { StackSynthesizer?: { prototype: { synthesize?: unknown } } } | undefined;
  const synthesize = loaded?.StackSynthesizer?.prototype.synthesize;
  try {
    const writer = require.resolve('json-stable-stringify', { paths: [path.dirname(synthesizerFile)] });
    const { version } = JSON.parse(fs.readFileSync(path.join(path.dirname(writer), 'package.json'), 'utf8')) as { version?: unknown };
    return { synthesize: typeof version === 'string' && version.startsWith('1.') ? synthesize : undefined };
  } catch {
    return { synthesize: undefined };
  }
}

/** What the framework's token resolution treats specially (inert-value.ts), for the framework of `scope`. */
export function tokenRules(scope: IConstruct): TokenRules {
  const { Token } = frameworkOf(scope).module;
  return {
    isNumberToken: (value: number) => Token.isUnresolved(value),
    refusedTexts: new Set([Token.STRING_MAP_TOKEN_VALUE, Token.ANY_MAP_TOKEN_VALUE]),
  };
}

/** Adds a validation that the framework runs at synth, reporting all messages of all constructs together. */
export function addValidation(construct: IConstruct, validate: () => string[]): void {
  construct.node.addValidation({ validate });
}

/** The framework's class itself (`classOf` below: a subclass of it, override-keys.ts). */
function same(base: TerraformResourceClass): TerraformResourceClass {
  return base;
}

/**
 * terraform's built-in `terraform_data` resource (no provider to download; terraform >= 1.4). Made with the
 * generic resource class, not the framework's `DataResource`: that one adds a validation that runs
 * `terraform version` at every synth, which would make synth need terraform (secretform's own commands don't)
 * and spawn it once per construct. Attributes are set with `addOverride`.
 */
export function newTerraformData(scope: IConstruct, id: string, classOf: (base: TerraformResourceClass) => TerraformResourceClass = same): TerraformElementLike {
  return new (classOf(frameworkOf(scope).module.TerraformResource))(scope, id, { terraformResourceType: 'terraform_data', terraformGeneratorMetadata: { providerName: 'terraform' } });
}

/**
 * A resource of the null provider (`null_resource`) made with the framework's generic resource class: the
 * provider is implied by the type (terraform installs `hashicorp/null`), so no provider bindings are needed,
 * which also makes it work under cdktn (there is no `@cdktn/provider-null`).
 */
export function newNullResource(
  scope: IConstruct,
  id: string,
  triggers: Record<string, string>,
  classOf: (base: TerraformResourceClass) => TerraformResourceClass = same,
): TerraformElementLike {
  const resource = new (classOf(frameworkOf(scope).module.TerraformResource))(scope, id, { terraformResourceType: 'null_resource' });
  resource.addOverride('triggers', triggers);
  return resource;
}

/** Whether a value holds an unresolved framework token (a terraform reference or variable) anywhere inside. */
export function containsToken(value: unknown, scope: IConstruct): boolean {
  return tokenTest(scope)(value);
}

const tokenTests = new WeakMap<FrameworkModule, (value: unknown) => boolean>();

/**
 * `containsToken` for the framework of `scope`, made once per framework: every construct asks it of each of its
 * props, most of them strings.
 */
export function tokenTest(scope: IConstruct): (value: unknown) => boolean {
  const { module } = frameworkOf(scope);
  let test = tokenTests.get(module);
  if (test === undefined) {
    const { Token } = module;
    const inner = (item: unknown): boolean => {
      // A string token is encoded as `${TfToken[...]}` (lists and maps `#{...}`, `&{...}`): a string without `{`
      // holds none, and is never handed to the framework's regular expressions.
      if (typeof item === 'string') return item.includes('{') && Token.isUnresolved(item);
      if (typeof item === 'number') return Token.isUnresolved(item);
      if (Array.isArray(item)) return item.some(inner);
      if (typeof item === 'object' && item !== null && Object.getPrototypeOf(item) === Object.prototype) {
        return Object.values(item).some(inner);
      }
      return Token.isUnresolved(item);
    };
    tokenTests.set(module, (test = inner));
  }
  return test;
}
