/**
 * What secretform adds to each stack, once: the stack-level rules (two constructs managing one object, an
 * account in two library sets, references across stacks, ...), and the pass that, once every construct
 * exists, resolves dependencies and writes each construct's spec and the `cdktf deploy` bridge (bridge.ts).
 */
import * as path from 'node:path';
import type { IConstruct } from 'constructs';
import type { Attributes } from '../resources/types';
import type { SecretReference, SecretValue } from '../secret-value';
import { SPEC_OVERRIDE_PATH, writeInvalidMarker, writeSynthesizedSpec } from '../synthesized-spec';
import {
  appAspectsTest, appOutdir, newNullResource, newTerraformData, onStackConfiguration, onStackSynth, stackOverrideKeys, tokenRules,
  usesFrameworkNaming, writesHcl, type TerraformElementLike,
} from './cdktf-adapter';
import {
  BRIDGE_RESOURCE_TYPES, bridgeStep, DEFAULT_BRIDGE_COMMAND, literal, specDigest, type BridgeResourceType, type DeployBridgeOptions,
} from './bridge';
import { logicalIdOf } from './carrier-id';
import { DeferredOverrides, type Carrier } from './deferred-overrides';
import { isInert, type TokenRules } from './inert-value';
import { quietResourceClass, restoreOverrideKeys } from './override-keys';
import { recordStackDigest } from './stack-digest';
import { writesOwnFile } from './stack-file';
import type { StackMember } from './stack-member';
import { VirtualCarrier } from './virtual-carrier';

/** One resource of a stack after the stack-level pass. */
export interface AnalysedResource {
  readonly resource: StackMember;
  readonly id: string;
  readonly dependsOn: readonly StackMember[];
  readonly digest: string;
}

export interface StackAnalysis {
  readonly resources: readonly AnalysedResource[];
  /** Stack-level problems, each naming the construct path(s) and what is allowed. */
  readonly problems: readonly string[];
}

const supports = new WeakMap<IConstruct, StackSupport>();

/** The id of a construct's carrier, its child: its path is the construct's, then `/resource`. */
const CARRIER_ID = 'resource';

/** Whether the carrier of `resource`, with these values, may be virtual: its logical id and path then. */
type VirtualCarrierRule = (resource: StackMember, identity: Record<string, string>, spec: Record<string, unknown> | undefined) => { id: string; path: string } | undefined;

/** The id of the stack-level bridge step (`terraform_data.secretform` / `null_resource.secretform`). */
export const BRIDGE_STEP_ID = 'secretform';

/**
 * Chooses how `cdktf deploy` reaches secretform for one stack (see bridge.ts); call it before `app.synth()`.
 * Without it, the context values `secretform:bridge` and `secretform:command` (cdktf.json "context") apply.
 */
export function configureDeployBridge(stack: IConstruct, options: DeployBridgeOptions): void {
  StackSupport.of(stack).configure(options);
}

export class StackSupport {
  static of(stack: IConstruct): StackSupport {
    let support = supports.get(stack);
    if (!support) {
      support = new StackSupport(stack);
      supports.set(stack, support);
    }
    return support;
  }

  /** The support of a stack, if any secretform construct was ever added to it. */
  static existing(stack: IConstruct): StackSupport | undefined {
    return supports.get(stack);
  }

  private readonly registered: StackMember[] = [];
  private options: DeployBridgeOptions = {};
  /** The carriers made as constructs, kept from synth to synth. */
  private readonly carriers = new Map<StackMember, TerraformElementLike>();
  /** This synth's virtual carriers (virtual-carrier.ts). */
  private virtualCarriers = new Map<StackMember, VirtualCarrier>();
  private step: TerraformElementLike | undefined;
  /**
   * The values of this synth that the stack's configuration gets once the framework has built it (see
   * `finalise`); each element holds an empty placeholder meanwhile.
   */
  private deferred = new DeferredOverrides(undefined);
  /**
   * The stack-level problems the synth pass found, and the resources it found them for. Validation runs right
   * after the pass and asks for the same problems: unless the stack's resources changed in between, they are
   * these (a construct's props, spec, references and path are fixed when it is made).
   */
  private analysed: { readonly resources: readonly StackMember[]; readonly problems: readonly string[] } | undefined;

  private constructor(private readonly stack: IConstruct) {
    onStackSynth(stack, () => this.finalise());
    onStackConfiguration(stack, (configuration) => this.complete(configuration));
    // After `complete`: the record is made from the finished configuration (stack-digest.ts).
    recordStackDigest(stack);
    // Validation needs the stack's problems only, not the digests and dependencies of the synth pass.
    stack.node.addValidation({ validate: () => [...this.optionProblems(), ...this.stackProblems()] });
  }

  private stackProblems(): readonly string[] {
    const resources = this.resources();
    const { analysed } = this;
    if (analysed && sameMembers(analysed.resources, resources)) return analysed.problems;
    return stackProblems(this.stack, resources);
  }

  register(resource: StackMember): void {
    this.registered.push(resource);
  }

  configure(options: DeployBridgeOptions): void {
    this.options = { ...this.options, ...options };
  }

  /** The registered resources still in the tree, in construct order. */
  resources(): StackMember[] {
    return this.registered.filter((resource) => isUnder(resource, this.stack));
  }

  /** The bridge resource type: configured, else the `secretform:bridge` context value, else terraform_data. */
  bridgeResourceType(): BridgeResourceType {
    const chosen = this.options.resource ?? this.stack.node.tryGetContext('secretform:bridge') as unknown;
    return chosen === 'null_resource' ? 'null_resource' : 'terraform_data';
  }

  private bridgeCommand(): string {
    const chosen = this.options.command ?? this.stack.node.tryGetContext('secretform:command') as unknown;
    return typeof chosen === 'string' && chosen.trim() !== '' ? chosen : DEFAULT_BRIDGE_COMMAND;
  }

  private optionProblems(): string[] {
    const problems: string[] = [];
    const resource = this.options.resource ?? this.stack.node.tryGetContext('secretform:bridge') as unknown;
    if (resource !== undefined && !BRIDGE_RESOURCE_TYPES.includes(resource as BridgeResourceType)) {
      problems.push(`${this.stack.node.path}: deploy bridge resource: received ${JSON.stringify(resource)}; one of ${BRIDGE_RESOURCE_TYPES.map((type) => JSON.stringify(type)).join(', ')}`);
    }
    const command = this.options.command ?? this.stack.node.tryGetContext('secretform:command') as unknown;
    if (command !== undefined && (typeof command !== 'string' || command.trim() === '')) {
      problems.push(`${this.stack.node.path}: deploy bridge command: received ${JSON.stringify(command)}; a non-empty shell command that runs secretform (default ${JSON.stringify(DEFAULT_BRIDGE_COMMAND)})`);
    }
    return problems;
  }

  /**
   * Runs at synth, before validation: one plain entry per construct (with the spec of each valid one), their
   * dependencies, and the stack-level step that runs secretform on deploy and destroy.
   */
  private finalise(): void {
    const type = this.bridgeResourceType();
    const resources = this.resources();
    const analysis = analyseStack(this.stack, resources);
    this.analysed = { resources, problems: analysis.problems };
    const analysed = new Map(analysis.resources.map((entry) => [entry.resource, entry]));
    // The carriers' values (identity, spec, dependencies) are most of the configuration's values, and the
    // framework's merging and token resolution walk every value several times: an inert value skips them and is
    // added to the built configuration by `complete`, which gives the same file (deferred-overrides.ts).
    const rules = writesHcl(this.stack) ? undefined : tokenRules(this.stack);
    const deferred = new DeferredOverrides(rules);
    const virtual = this.virtualCarrierRule(rules);
    this.virtualCarriers = new Map();
    // With validation skipped (`new App({ skipValidation: true })`) synth goes on despite problems: each
    // construct concerned still carries a marker with them, so the engine refuses it instead of reading its
    // absence as "removed from code" and deleting the live object.
    const stackLevel = (resource: StackMember) => (analysis.problems.length === 0 ? [] : analysis.problems.filter((problem) => problem.startsWith(`${resource.address}: `)));
    // Each construct's identity and its synthesized spec (or the marker of its problems), then its carrier: a
    // virtual one when those values allow it.
    const identities: Array<Record<string, string>> = [];
    const specs: Array<Record<string, unknown> | undefined> = [];
    for (const resource of resources) {
      const entry = analysed.get(resource);
      // Terraform would interpolate `${` in these strings: escaped, they show as written. Keys in sorted order,
      // the file's: the stack file's writer copies an object whose keys are not (stable-json-text.ts).
      const identity = { address: literal(resource.address), digest: entry?.digest ?? '', id: literal(entry?.id ?? ''), type: resource.resourceType.type };
      const problems = [...resource.propProblems(), ...resource.synthOnlyProblems(), ...stackLevel(resource)];
      const spec = problems.length > 0
        ? writeInvalidMarker({ type: resource.resourceType.type, address: resource.address, problems })
        : entry && synthesizedSpec(entry);
      identities.push(identity);
      specs.push(spec);
      this.makeCarrier(resource, type, virtual?.(resource, identity, spec));
    }
    // Each carrier's terraform address, made once: every dependent's `depends_on` and the step's share the text.
    const carrierAddresses = new Map<StackMember, string>();
    const carrierAddress = (resource: StackMember): string => {
      let address = carrierAddresses.get(resource);
      if (address === undefined) carrierAddresses.set(resource, (address = `${type}.${this.carrier(resource).friendlyUniqueId}`));
      return address;
    };
    resources.forEach((resource, index) => {
      const carrier = this.carrier(resource);
      deferred.set(carrier, type === 'terraform_data' ? 'input' : 'triggers', identities[index]);
      const spec = specs[index];
      if (spec !== undefined) deferred.set(carrier, SPEC_OVERRIDE_PATH, spec);
      const entry = analysed.get(resource);
      const dependsOn = entry === undefined ? [] : entry.dependsOn.map(carrierAddress);
      if (dependsOn.length > 0) deferred.set(carrier, 'depends_on', dependsOn);
    });
    this.deferred = deferred;
    this.addStep(type, resources, deferred, carrierAddress);
  }

  /**
   * Whether a construct's carrier may be virtual (virtual-carrier.ts), and its logical id then; undefined when
   * none of this stack's may. A virtual carrier differs from a carrier construct in nothing the file shows, and
   * nothing else sees it: the file is written by secretform's writer (stack-file.ts) from the configuration of
   * a stack that builds it and names its elements as cdktf does and whose own overrides set no resource (cdktf
   * merges them into the entries it made), no aspect of the app's sits on the stack or above the construct (it
   * would have visited the carrier), and every value of the carrier is inert. A
   * construct that already has a carrier construct (an earlier synth) keeps it, so does one with a child of
   * the carrier's id (adding the carrier throws, as before).
   */
  private virtualCarrierRule(rules: TokenRules | undefined): VirtualCarrierRule | undefined {
    const { stack } = this;
    const hasAppAspects = appAspectsTest(stack);
    if (rules === undefined || !writesOwnFile(stack) || !usesFrameworkNaming(stack) || stackOverrideKeys(stack).includes('resource') || hasAppAspects(stack)) return undefined;
    const prefix = `${stack.node.path}/`;
    // Per scope between the stack and the constructs: whether it and every scope above it are free of the app's aspects.
    const clear = new Map<IConstruct, boolean>([[stack, true]]);
    const clearAbove = (node: IConstruct): boolean => {
      let known = clear.get(node);
      if (known === undefined) {
        const scope = node.node.scope;
        known = scope !== undefined && clearAbove(scope) && !hasAppAspects(node);
        clear.set(node, known);
      }
      return known;
    };
    return (resource, identity, spec) => {
      const { address } = resource;
      const path = `${address}/${CARRIER_ID}`;
      if (this.carriers.has(resource) || !address.startsWith(prefix) || resource.node.tryFindChild(CARRIER_ID) !== undefined) return undefined;
      if (!clearAbove(resource) || !isInert(path, rules) || !isInert(identity, rules) || (spec !== undefined && !isInert(spec, rules))) return undefined;
      return { id: logicalIdOf([...address.slice(prefix.length).split('/'), CARRIER_ID]), path };
    };
  }

  /**
   * Completes the configuration the framework built for the stack: the deferred values in their elements'
   * placeholders (and the virtual carriers' entries), and the carriers' override keys in the stack's metadata
   * (override-keys.ts).
   */
  private complete(configuration: Record<string, unknown>): void {
    this.deferred.complete(configuration);
    const types = new Set([...this.carriers.values(), ...this.virtualCarriers.values()].map((carrier) => carrier.terraformResourceType));
    restoreOverrideKeys(this.stack, configuration, types, this.virtualCarriers);
  }

  /** The carrier of `resource` made by this synth's `makeCarrier`. */
  private carrier(resource: StackMember): Carrier {
    return this.virtualCarriers.get(resource) ?? this.carriers.get(resource)!;
  }

  /** Makes the carrier of `resource` for this synth: virtual when `virtual` says so, else a construct (kept from an earlier synth when of the same type). */
  private makeCarrier(resource: StackMember, type: BridgeResourceType, virtual: { id: string; path: string } | undefined): void {
    if (virtual !== undefined) {
      this.virtualCarriers.set(resource, new VirtualCarrier(type, virtual.id, virtual.path));
      return;
    }
    let carrier = this.carriers.get(resource);
    if (carrier && carrier.terraformResourceType !== type) {
      resource.node.tryRemoveChild(carrier.node.id);
      carrier = undefined;
    }
    if (!carrier) {
      // A carrier reports its override keys apart from the framework's quadratic merge, unless the app writes
      // HCL (made from another method this pass does not complete).
      const classOf = writesHcl(this.stack) ? undefined : quietResourceClass;
      carrier = type === 'terraform_data' ? newTerraformData(resource, CARRIER_ID, classOf) : newNullResource(resource, CARRIER_ID, {}, classOf);
      this.carriers.set(resource, carrier);
    }
  }

  private addStep(type: BridgeResourceType, resources: readonly StackMember[], deferred: DeferredOverrides, carrierAddress: (resource: StackMember) => string): void {
    if (this.step && this.step.terraformResourceType !== type) {
      this.stack.node.tryRemoveChild(this.step.node.id);
      this.step = undefined;
    }
    const stackName = this.stack.node.id;
    const outdir = path.resolve(appOutdir(this.stack));
    const projectDir = process.cwd();
    const workdir = toPosix(path.relative(path.join(outdir, 'stacks', stackName), projectDir)) || '.';
    const output = toPosix(path.relative(projectDir, outdir)) || '.';
    const attribute = type === 'terraform_data' ? 'input' : 'triggers';
    const { stored, provisioners } = bridgeStep({ stack: stackName, workdir, output, command: this.bridgeCommand() }, attribute);
    if (!this.step) {
      this.step = type === 'terraform_data'
        ? newTerraformData(this.stack, BRIDGE_STEP_ID)
        : newNullResource(this.stack, BRIDGE_STEP_ID, {});
    }
    // A new value on every plan: terraform replaces the step, so its create-time provisioner runs every deploy.
    if (type === 'terraform_data') {
      this.step.addOverride('input', stored);
      this.step.addOverride('triggers_replace', '${timestamp()}');
    } else {
      this.step.addOverride('triggers', { ...stored, run: '${timestamp()}' });
    }
    // Deposed create_before_destroy objects never run their destroy-time provisioner: replacing the step on
    // each deploy destroys nothing; `cdktf destroy` destroys the current one, which runs `secretform destroy`.
    this.step.addOverride('lifecycle', { create_before_destroy: true });
    this.step.addOverride('provisioner', provisioners);
    const carriers = resources.map(carrierAddress);
    // One entry per construct: the largest list of the configuration.
    if (carriers.length > 0) deferred.set(this.step, 'depends_on', carriers);
  }
}

/** The object written under `"//".secretform` of a construct's entry in the synthesized configuration (format: synthesized-spec.ts). */
export function synthesizedSpec(entry: AnalysedResource): Record<string, unknown> {
  const { resource } = entry;
  const secrets: Record<string, SecretReference> = {};
  for (const [field, secret] of Object.entries(resource.secrets)) {
    // Plain-text secrets never get here: they fail validation at synth.
    if (secret.reference) secrets[field] = secret.reference;
  }
  return writeSynthesizedSpec({
    type: resource.resourceType.type,
    address: resource.address,
    id: entry.id,
    spec: resource.spec,
    secrets,
    dependsOn: entry.dependsOn.map((target) => target.address),
    digest: entry.digest,
    lifecycle: resource.lifecycle,
    policyWaivers: resource.policyWaivers,
    source: resource.source,
  });
}

/** The stack-level problems (the rules that need the whole stack), for validation. */
export function stackProblems(stack: IConstruct, all: readonly StackMember[]): string[] {
  return stackFacts(stack, all).problems;
}

interface StackFacts {
  readonly problems: string[];
  /** The resources whose own props are valid. */
  readonly valid: readonly StackMember[];
  /** Valid resources by object id (the first of two with one id). */
  readonly byId: ReadonlyMap<string, StackMember>;
}

/**
 * What a construct path must not hold: shell quoting and expansion characters (the bridge passes it as a shell
 * argument), and control characters. Made once: a literal in the loop is a new RegExp per construct.
 */
const UNSAFE_IN_PATH = /['"`\\$%\n\r]/;
// eslint-disable-next-line no-control-regex
const CONTROL_IN_PATH = /[\u0000-\u001f\u007f-\u009f]/;

function stackFacts(stack: IConstruct, all: readonly StackMember[]): StackFacts {
  const problems: string[] = [];
  const valid = all.filter((resource) => !resource.hasPropIssues);
  const byId = new Map<string, StackMember>();
  for (const resource of all) {
    const unsafe = UNSAFE_IN_PATH.exec(resource.address);
    if (unsafe) {
      problems.push(`${resource.address}: construct path: received ${JSON.stringify(resource.address)}; construct ids must not contain ${JSON.stringify(unsafe[0])} (the path becomes a shell argument of the cdktf deploy bridge)`);
    }
    const control = CONTROL_IN_PATH.exec(resource.address);
    if (control && !unsafe) {
      problems.push(`${resource.address}: construct path: received ${JSON.stringify(resource.address)}; construct ids must not contain control characters (here ${JSON.stringify(control[0])}): every report that names the construct would pass them to the terminal`);
    }
  }
  for (const resource of valid) {
    const id = resource.resourceId!;
    const other = byId.get(id);
    if (other) {
      problems.push(`${resource.address}: ${identityProps(resource)}: received ${JSON.stringify(id)}; ${other.address} already manages ${id} - two constructs must not manage the same object`);
    } else {
      byId.set(id, resource);
    }
  }
  for (const resource of valid) {
    for (const reference of resource.references) {
      if (!isUnder(reference.target, stack)) {
        problems.push(`${resource.address}: ${reference.prop}: received construct ${reference.target.address}; a construct of the same stack (${stack.node.id}), or the path/name as a string`);
      }
    }
  }
  problems.push(...librarySetProblems(valid), ...associationMountProblems(valid, byId));
  return { problems, valid, byId };
}

/**
 * Whether `node` is `root` or in its tree: every scope from it up to `root` still holds it (a construct removed
 * with `tryRemoveChild` keeps its scope). A walk up a few scopes, where `root.node.findAll()` walked the whole
 * stack (twice the constructs, with their carriers) at every call.
 */
function isUnder(node: IConstruct, root: IConstruct): boolean {
  for (let current = node; current !== root;) {
    const scope = current.node.scope;
    if (scope === undefined || scope.node.tryFindChild(current.node.id) !== current) return false;
    current = scope;
  }
  return true;
}

/**
 * The stack-level pass: ids, dependencies, digests and the rules that need the whole stack. Constructs whose
 * own props are invalid are left out (their messages already explain why).
 */
export function analyseStack(stack: IConstruct, all: readonly StackMember[]): StackAnalysis {
  const { problems, valid, byId } = stackFacts(stack, all);

  // Position of each valid resource: dependencies are listed in stack order without rescanning the stack per
  // resource (that was quadratic: seconds at 10,000 constructs).
  const position = new Map(valid.map((resource, index) => [resource, index]));
  const resources = valid.map((resource): AnalysedResource => {
    const dependsOn = new Set<StackMember>();
    for (const reference of resource.references) {
      if (reference.target !== resource && isUnder(reference.target, stack) && !reference.target.hasPropIssues) dependsOn.add(reference.target);
    }
    // `dependsOn` and `normaliseDesired` each read the canonical form of the spec, which the resource model
    // computes once per frozen spec: a frozen copy (the construct's own spec is the user's to keep) makes the
    // second call a lookup instead of a second pass over every field.
    const spec = Object.freeze({ ...resource.spec });
    for (const needed of resource.resourceType.dependsOn(spec)) {
      const target = byId.get(needed);
      if (target && target !== resource) dependsOn.add(target);
    }
    const id = resource.resourceId!;
    // Most constructs depend on one other or none: no copies to filter and sort then.
    const ordered = dependsOn.size === 0 ? [] : [...dependsOn].filter((candidate) => position.has(candidate));
    if (ordered.length > 1) ordered.sort((a, b) => position.get(a)! - position.get(b)!);
    const digest = specDigest(resource.resourceType.type, id, resource.resourceType.normaliseDesired(spec), secretSources(resource.secrets));
    return { resource, id, dependsOn: ordered, digest };
  });
  return { resources, problems };
}

function identityProps(resource: StackMember): string {
  const props = resource.resourceType.fields.filter((field) => field.identity).map((field) => field.prop);
  return [...new Set(props)].join(', ') || 'id';
}

/** Where each secret comes from (never its value): part of the digest, so a changed reference re-applies. */
function secretSources(secrets: Readonly<Record<string, SecretValue>>): Attributes {
  const sources: Attributes = {};
  for (const [field, secret] of Object.entries(secrets)) sources[field] = secret.reference ?? 'unsafe-plain-text';
  return sources;
}

/** An account may belong to one library set of a mount only (the service refuses the second). */
function librarySetProblems(resources: readonly StackMember[]): string[] {
  const problems: string[] = [];
  const owners = new Map<string, StackMember>();
  for (const resource of resources) {
    if (resource.resourceType.type !== 'ldap_library_set') continue;
    const accounts = resource.spec.service_account_names;
    if (!Array.isArray(accounts)) continue;
    // The model says whether the service tells two names apart by case.
    const ignoringCase = resource.resourceType.fields.some((field) => field.api === 'service_account_names' && field.matchesIgnoringCase);
    for (const account of accounts) {
      const key = `${String(resource.spec.mount)}\u0000${ignoringCase ? String(account).toLowerCase() : String(account)}`;
      const owner = owners.get(key);
      if (owner && owner !== resource) {
        problems.push(`${resource.address}: serviceAccountNames: received ${JSON.stringify(account)}; already in library set ${owner.address} of mount ${JSON.stringify(resource.spec.mount)} - an account belongs to at most one set`);
      } else {
        owners.set(key, resource);
      }
    }
  }
  return problems;
}

/** Sync supports KV-v2 secrets only: an association's mount, when managed in the stack, must be one. */
function associationMountProblems(resources: readonly StackMember[], byId: Map<string, StackMember>): string[] {
  const problems: string[] = [];
  for (const resource of resources) {
    if (resource.resourceType.type !== 'sync_association') continue;
    const mount = byId.get(`sys/mounts/${String(resource.spec.mount)}`);
    if (!mount) continue;
    const options = mount.spec.options as Record<string, unknown> | undefined;
    if (mount.spec.type !== 'kv' || options?.version !== '2') {
      problems.push(`${resource.address}: mount: received ${JSON.stringify(resource.spec.mount)} (managed by ${mount.address} as type ${JSON.stringify(mount.spec.type)}${options?.version ? ` version ${JSON.stringify(options.version)}` : ''}); a KV version 2 mount (type "kv", options {version: "2"}) - sync supports KV-v2 secrets only`);
    }
  }
  return problems;
}

/** Whether two lists hold the same resources in the same order. */
function sameMembers(a: readonly StackMember[], b: readonly StackMember[]): boolean {
  return a.length === b.length && a.every((resource, index) => resource === b[index]);
}

function toPosix(value: string): string {
  return value.split(path.sep).join('/');
}
