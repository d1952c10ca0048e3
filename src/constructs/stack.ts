/**
 * What secretform adds to each stack, once: the null provider, the stack-level rules (two constructs managing
 * one object, an account in two library sets, references across stacks, ...), and the pass that, once every
 * construct exists, resolves dependencies and writes each construct's spec and `cdktf deploy` bridge onto its
 * null_resource.
 */
import * as path from 'node:path';
import type { Attributes } from '../resources/types';
import type { SecretReference, SecretValue } from '../secret-value';
import { SPEC_OVERRIDE_PATH, writeInvalidMarker, writeSynthesizedSpec } from '../synthesized-spec';
import { appOutdir, NullProvider, onStackSynth, otherNullProviders, type TerraformStack } from './cdktf-adapter';
import { bridgeAttributes, specDigest } from './bridge';
import type { SecretformResource } from './resource';

/** One resource of a stack after the stack-level pass. */
export interface AnalysedResource {
  readonly resource: SecretformResource;
  readonly id: string;
  readonly dependsOn: readonly SecretformResource[];
  readonly digest: string;
}

export interface StackAnalysis {
  readonly resources: readonly AnalysedResource[];
  /** Stack-level problems, each naming the construct path(s) and what is allowed. */
  readonly problems: readonly string[];
}

const supports = new WeakMap<TerraformStack, StackSupport>();

export class StackSupport {
  static of(stack: TerraformStack): StackSupport {
    let support = supports.get(stack);
    if (!support) {
      support = new StackSupport(stack);
      supports.set(stack, support);
    }
    return support;
  }

  /** The support of a stack, if any secretform construct was ever added to it. */
  static existing(stack: TerraformStack): StackSupport | undefined {
    return supports.get(stack);
  }

  private readonly registered: SecretformResource[] = [];
  private readonly provider: NullProvider;

  private constructor(private readonly stack: TerraformStack) {
    this.provider = new NullProvider(stack, 'secretform-null-provider');
    onStackSynth(stack, () => this.finalise());
    stack.node.addValidation({ validate: () => [...analyseStack(this.stack, this.resources()).problems] });
  }

  register(resource: SecretformResource): void {
    this.registered.push(resource);
  }

  /** The registered resources still in the tree, in construct order. */
  resources(): SecretformResource[] {
    const inStack = new Set(this.stack.node.findAll());
    return this.registered.filter((resource) => inStack.has(resource));
  }

  /** Writes spec, dependencies and bridge onto each null_resource; runs at synth before validation. */
  private finalise(): void {
    if (otherNullProviders(this.stack, this.provider).length > 0) this.stack.node.tryRemoveChild(this.provider.node.id);
    const analysis = analyseStack(this.stack, this.resources());
    const stackName = this.stack.node.id;
    const outdir = path.resolve(appOutdir(this.stack));
    const projectDir = process.cwd();
    const workdir = toPosix(path.relative(path.join(outdir, 'stacks', stackName), projectDir)) || '.';
    const output = toPosix(path.relative(projectDir, outdir)) || '.';
    for (const entry of analysis.resources) {
      const { resource } = entry;
      resource.nullResource.addOverride(SPEC_OVERRIDE_PATH, synthesizedSpec(entry));
      const bridge = bridgeAttributes({ address: resource.address, digest: entry.digest, stack: stackName, workdir, output });
      resource.nullResource.triggers = bridge.triggers;
      resource.nullResource.addOverride('provisioner', bridge.provisioners);
      const dependsOn = entry.dependsOn.map((target) => `null_resource.${target.nullResource.friendlyUniqueId}`);
      if (dependsOn.length > 0) resource.nullResource.addOverride('depends_on', dependsOn);
    }
    // With validation skipped (`new App({ skipValidation: true })`) synth goes on despite problems: each
    // construct concerned still carries a marker with them, so the engine refuses it instead of reading its
    // absence as "removed from code" and deleting the live object.
    for (const resource of this.resources()) {
      const problems = [...resource.propProblems(), ...resource.synthOnlyProblems(), ...analysis.problems.filter((problem) => problem.startsWith(`${resource.address}: `))];
      if (problems.length === 0) continue;
      resource.nullResource.addOverride(SPEC_OVERRIDE_PATH, writeInvalidMarker({ type: resource.resourceType.type, address: resource.address, problems }));
    }
  }
}

/** The object written under `"//".secretform` of a resource's null_resource (format: synthesized-spec.ts). */
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
  });
}

/**
 * The stack-level pass: ids, dependencies, digests and the rules that need the whole stack. Constructs whose
 * own props are invalid are left out (their messages already explain why).
 */
export function analyseStack(stack: TerraformStack, all: readonly SecretformResource[]): StackAnalysis {
  const problems: string[] = [];
  const inStack = new Set(stack.node.findAll());
  const valid = all.filter((resource) => !resource.hasPropIssues);
  const byId = new Map<string, SecretformResource>();
  for (const resource of all) {
    const unsafe = /['"`\\$%\n\r]/.exec(resource.address);
    if (unsafe) {
      problems.push(`${resource.address}: construct path: received ${JSON.stringify(resource.address)}; construct ids must not contain ${JSON.stringify(unsafe[0])} (the path becomes a shell argument of the cdktf deploy bridge)`);
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
      if (!inStack.has(reference.target)) {
        problems.push(`${resource.address}: ${reference.prop}: received construct ${reference.target.address}; a construct of the same stack (${stack.node.id}), or the path/name as a string`);
      }
    }
  }
  problems.push(...librarySetProblems(valid), ...associationMountProblems(valid, byId));

  const resources = valid.map((resource): AnalysedResource => {
    const dependsOn = new Set<SecretformResource>();
    for (const reference of resource.references) {
      if (reference.target !== resource && inStack.has(reference.target) && !reference.target.hasPropIssues) dependsOn.add(reference.target);
    }
    for (const needed of resource.resourceType.dependsOn(resource.spec)) {
      const target = byId.get(needed);
      if (target && target !== resource) dependsOn.add(target);
    }
    const id = resource.resourceId!;
    const ordered = valid.filter((candidate) => dependsOn.has(candidate));
    const digest = specDigest(resource.resourceType.type, id, resource.resourceType.normaliseDesired(resource.spec), secretSources(resource.secrets));
    return { resource, id, dependsOn: ordered, digest };
  });
  return { resources, problems };
}

function identityProps(resource: SecretformResource): string {
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
function librarySetProblems(resources: readonly SecretformResource[]): string[] {
  const problems: string[] = [];
  const owners = new Map<string, SecretformResource>();
  for (const resource of resources) {
    if (resource.resourceType.type !== 'ldap_library_set') continue;
    const accounts = resource.spec.service_account_names;
    if (!Array.isArray(accounts)) continue;
    // The model says whether the service tells two names apart by case.
    const ignoringCase = resource.resourceType.fields.some((field) => field.api === 'service_account_names' && field.matchesIgnoringCase);
    for (const account of accounts) {
      const key = `${resource.spec.mount}\u0000${ignoringCase ? String(account).toLowerCase() : String(account)}`;
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
function associationMountProblems(resources: readonly SecretformResource[], byId: Map<string, SecretformResource>): string[] {
  const problems: string[] = [];
  for (const resource of resources) {
    if (resource.resourceType.type !== 'sync_association') continue;
    const mount = byId.get(`sys/mounts/${resource.spec.mount}`);
    if (!mount) continue;
    const options = mount.spec.options as Record<string, unknown> | undefined;
    if (mount.spec.type !== 'kv' || options?.version !== '2') {
      problems.push(`${resource.address}: mount: received ${JSON.stringify(resource.spec.mount)} (managed by ${mount.address} as type ${JSON.stringify(mount.spec.type)}${options?.version ? ` version ${JSON.stringify(options.version)}` : ''}); a KV version 2 mount (type "kv", options {version: "2"}) - sync supports KV-v2 secrets only`);
    }
  }
  return problems;
}

function toPosix(value: string): string {
  return value.split(path.sep).join('/');
}
