/**
 * The desired state the engine works from, read either from a synth output directory
 * (`<outdir>/stacks/<stack>/cdk.tf.json`, the `"//".secretform` object of each construct's entry) or from an in-memory
 * stack (`desiredFromStack`, the only way `SecretValue.unsafePlainText` values reach the engine).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import type { IConstruct } from 'constructs';
import { findResourceType } from '../resources/registry';
import type { Attributes } from '../resources/types';
import { parseSecretReferenceJson, secretReferenceJson, SecretValue } from '../secret-value';
import { SPEC_FORMAT_VERSION } from '../constructs/bridge';

export interface DesiredResource {
  /** Construct path, e.g. `prod/ldap/svc-role`. */
  readonly address: string;
  /** Resource type, e.g. `ldap_static_role`. */
  readonly type: string;
  /** API path id, e.g. `ldap/static-role/svc`. */
  readonly id: string;
  /** Desired attributes by the service's field names, as written in code (normalise with the type's `normaliseDesired`). */
  readonly spec: Readonly<Attributes>;
  /** Secret fields by field name; resolve with `resolveSecretValue`. */
  readonly secrets: Readonly<Record<string, SecretValue>>;
  /** Addresses of the resources that must exist first. */
  readonly dependsOn: readonly string[];
  /** Digest of the canonical spec and the secret references (the bridge's trigger). */
  readonly digest: string;
}

export interface DesiredStack {
  readonly stack: string;
  /** In construct order; every `dependsOn` address is one of them. */
  readonly resources: readonly DesiredResource[];
}

export class DesiredStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DesiredStateError';
  }
}

/** Names of the stacks of a synth output directory (from its `manifest.json`). */
export function listSynthesizedStacks(outdir: string): string[] {
  const manifestPath = path.join(outdir, 'manifest.json');
  let manifest: unknown;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist (run `secretform synth` first)' : (error as Error).message;
    throw new DesiredStateError(`${manifestPath}: ${reason}`);
  }
  const stacks = (manifest as { stacks?: Record<string, unknown> }).stacks;
  if (typeof stacks !== 'object' || stacks === null) throw new DesiredStateError(`${manifestPath}: has no "stacks" object`);
  return Object.keys(stacks);
}

/**
 * Reads the desired resources of one stack from a synth output directory. `stack` may be omitted when the
 * output holds exactly one stack.
 */
export function loadDesired(outdir: string, stack?: string): DesiredStack {
  const stacks = listSynthesizedStacks(outdir);
  const name = stack ?? (stacks.length === 1 ? stacks[0] : undefined);
  if (name === undefined) {
    throw new DesiredStateError(`${outdir} holds ${stacks.length} stacks (${stacks.join(', ') || 'none'}); choose one with --stack`);
  }
  if (!stacks.includes(name)) throw new DesiredStateError(`${outdir} has no stack "${name}"; stacks: ${stacks.join(', ') || 'none'}`);
  const file = path.join(outdir, 'stacks', name, 'cdk.tf.json');
  let config: unknown;
  try {
    config = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new DesiredStateError(`${file}: ${(error as Error).message}`);
  }
  return { stack: name, resources: resourcesOfConfig(config, file) };
}

const synthesizedSchema = z.object({
  version: z.literal(SPEC_FORMAT_VERSION),
  type: z.string(),
  address: z.string().min(1),
  id: z.string().min(1),
  spec: z.record(z.string(), z.unknown()),
  secrets: z.record(z.string(), z.unknown()),
  dependsOn: z.array(z.string()),
  digest: z.string(),
});

/** What a construct whose props or stack rules failed is synthesized as when validation was skipped. */
const invalidMarkerSchema = z.object({
  version: z.literal(SPEC_FORMAT_VERSION),
  type: z.string(),
  address: z.string().min(1),
  problems: z.array(z.string()).min(1),
});

/** The object under `"//".secretform` of each construct's synthesized entry (format version 1). */
export type SynthesizedSpec = z.infer<typeof synthesizedSchema>;

/** The secretform resources of a synthesized stack configuration (`cdk.tf.json` content). */
export function resourcesOfConfig(config: unknown, source: string): DesiredResource[] {
  // The entry is a terraform_data (default bridge) or a null_resource (on request): read every resource block.
  const blocksByType = (config as { resource?: Record<string, Record<string, unknown>> })?.resource ?? {};
  const resources: DesiredResource[] = [];
  const invalid: string[] = [];
  const blocks = Object.entries(blocksByType).flatMap(([terraformType, byId]) =>
    Object.entries(byId ?? {}).map(([logicalId, block]) => ({ where: `${source}: ${terraformType}.${logicalId}`, block })));
  for (const { where, block } of blocks) {
    const comment = (block as { '//'?: { secretform?: unknown } })?.['//'];
    if (comment?.secretform === undefined) continue; // a resource of the user's own
    const marked = invalidMarkerSchema.safeParse(comment.secretform);
    if (marked.success) {
      invalid.push(...marked.data.problems.map((problem) => (problem.startsWith(`${marked.data.address}: `) ? problem : `${marked.data.address}: ${problem}`)));
      continue;
    }
    resources.push(desiredResourceOfSpec(comment.secretform, where));
  }
  if (invalid.length > 0) {
    throw new DesiredStateError(
      `${source}: ${invalid.length} problem${invalid.length === 1 ? '' : 's'} in constructs synthesized without validation ` +
        `(\`new App({ skipValidation: true })\`?); secretform never plans a construct whose spec is invalid. Fix them, ` +
        `then synthesize again:\n  ${invalid.join('\n  ')}`,
    );
  }
  checkDependencies(resources, source);
  return resources;
}

/** The desired resources of a list of synthesized specs (a saved plan keeps its desired state this way). */
export function resourcesOfSpecs(specs: readonly unknown[], source: string): DesiredResource[] {
  const resources = specs.map((spec, index) => desiredResourceOfSpec(spec, `${source}: resource ${index + 1}`));
  checkDependencies(resources, source);
  return resources;
}

/** The synthesized spec of a desired resource (what `cdk.tf.json` holds): secrets as references only. */
export function specOfDesiredResource(resource: DesiredResource): SynthesizedSpec {
  const secrets: Record<string, unknown> = {};
  for (const [field, secret] of Object.entries(resource.secrets)) {
    if (!secret.reference) {
      throw new DesiredStateError(`${resource.address}: secret "${field}" is SecretValue.unsafePlainText(...), which is never written to a file; use SecretValue.fromEnv or fromFile`);
    }
    secrets[field] = secretReferenceJson(secret.reference);
  }
  return {
    version: SPEC_FORMAT_VERSION,
    type: resource.type,
    address: resource.address,
    id: resource.id,
    spec: { ...resource.spec },
    secrets,
    dependsOn: [...resource.dependsOn],
    digest: resource.digest,
  };
}

function desiredResourceOfSpec(value: unknown, where: string): DesiredResource {
  const parsed = synthesizedSchema.safeParse(value);
  if (!parsed.success) {
    throw new DesiredStateError(`${where}: not a secretform spec of format version ${SPEC_FORMAT_VERSION}: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  }
  const entry = parsed.data;
  if (!findResourceType(entry.type)) throw new DesiredStateError(`${where}: unknown resource type "${entry.type}"`);
  const secrets: Record<string, SecretValue> = {};
  for (const [field, secretJson] of Object.entries(entry.secrets)) {
    const reference = parseSecretReferenceJson(secretJson);
    if (!reference) throw new DesiredStateError(`${where}: secret "${field}" is not a {"$secret": {"env"|"file": ...}} reference`);
    secrets[field] = SecretValue.fromReference(reference);
  }
  return { address: entry.address, type: entry.type, id: entry.id, spec: entry.spec, secrets, dependsOn: entry.dependsOn, digest: entry.digest };
}

function checkDependencies(resources: readonly DesiredResource[], source: string): void {
  const addresses = new Set(resources.map((resource) => resource.address));
  for (const resource of resources) {
    for (const dependency of resource.dependsOn) {
      if (!addresses.has(dependency)) throw new DesiredStateError(`${source}: ${resource.address} depends on ${dependency}, which is not in the stack`);
    }
  }
}

/**
 * The desired resources of an in-memory stack, without synthesizing: plain-text secrets are kept (for tests
 * and the in-process engine API). Invalid props and stack-level problems throw one error listing them all.
 */
export function desiredFromStack(stack: IConstruct): DesiredStack {
  // cdktf is loaded only for in-memory stacks: a run from synth output (the CLI's) never needs it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { isStack } = require('../constructs/cdktf-adapter') as typeof import('../constructs/cdktf-adapter');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { analyseStack, StackSupport } = require('../constructs/stack') as typeof import('../constructs/stack');
  if (!isStack(stack)) throw new DesiredStateError('desiredFromStack: expected a TerraformStack');
  const all = StackSupport.existing(stack)?.resources() ?? [];
  const analysis = analyseStack(stack, all);
  const problems = [...all.flatMap((resource) => resource.propProblems()), ...analysis.problems];
  if (problems.length > 0) {
    throw new DesiredStateError(`stack ${stack.node.id} is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n  ${problems.join('\n  ')}`);
  }
  return {
    stack: stack.node.id,
    resources: analysis.resources.map((entry) => ({
      address: entry.resource.address,
      type: entry.resource.resourceType.type,
      id: entry.id,
      spec: entry.resource.spec,
      secrets: entry.resource.secrets,
      dependsOn: entry.dependsOn.map((target) => target.address),
      digest: entry.digest,
    })),
  };
}
