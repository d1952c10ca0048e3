/**
 * The desired state the engine works from. The engine reads it from a synth output directory
 * (`<outdir>/stacks/<stack>/cdk.tf.json`, the spec format of synthesized-spec.ts), or takes it already loaded
 * (the constructs' `desiredFromStack` makes one from an in-memory stack). It never imports constructs or cdktf.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findResourceType } from '../../resources/registry';
import type { Attributes } from '../../resources/types';
import { SecretValue } from '../../secret-value';
import { utf8Text } from '../../utf8-text';
import { unknownIgnoredFields } from './ignored-fields';
import { deepFreeze } from '../../deep-freeze';
import {
  parseSynthesizedConnection, parseSynthesizedSpec, readSynthesizedConnection, readSynthesizedSpecs, SpecFormatError, writeSynthesizedConnection, writeSynthesizedSpec,
  type ResourceLifecycle, type SourceLocation, type SynthesizedConnection, type SynthesizedSpec,
} from '../../synthesized-spec';
import { addressProblem } from '../state/state-moves';
import { readRecordedSpecs, type RecordedSpecs } from './desired-specs-record';

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
  /** The guardrails set in code (protect, retainOnDelete, ignoreChanges), when any. */
  readonly lifecycle?: ResourceLifecycle;
  /** Policies the construct waives, by policy id, with the reason. */
  readonly policyWaivers?: Readonly<Record<string, string>>;
  /** Where the code creates the construct, when known: metadata for the reports' policy results. */
  readonly source?: SourceLocation;
}

export interface DesiredStack {
  readonly stack: string;
  /** In construct order; every `dependsOn` address is one of them. */
  readonly resources: readonly DesiredResource[];
  /**
   * The stack's ServiceConnection (which service it lives on, where its token is): absent when the stack has
   * none, and then the `SERVICE_*` environment applies.
   */
  readonly connection?: DesiredConnection;
}

/** A stack's connection: names and paths only (the token is read from the variable `tokenEnv` names). */
export type DesiredConnection = SynthesizedConnection;

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
 * output holds exactly one stack. `stacks`: the output's stacks, when the caller read its manifest already (a run
 * over 100 stacks read it once per stack before).
 */
export function loadDesired(outdir: string, stack?: string, stacks: readonly string[] = listSynthesizedStacks(outdir)): DesiredStack {
  const name = stack ?? (stacks.length === 1 ? stacks[0] : undefined);
  if (name === undefined) {
    throw new DesiredStateError(`${outdir} holds ${stacks.length} stacks (${stacks.join(', ') || 'none'}); choose one with --stack`);
  }
  if (!stacks.includes(name)) throw new DesiredStateError(`${outdir} has no stack "${name}"; stacks: ${stacks.join(', ') || 'none'}`);
  const file = path.join(outdir, 'stacks', name, 'cdk.tf.json');
  // The specs record synth wrote beside the file, while the file is as synth left it: the same desired state
  // without the file's 15 MB (at 10,000 objects) read and parsed (desired-specs-record.ts).
  const recorded = readRecordedSpecs(file);
  const fromRecord = recorded === undefined ? undefined : desiredOfRecord(recorded, name, file);
  if (fromRecord !== undefined) return fromRecord;
  let config: unknown;
  try {
    config = JSON.parse(utf8Text(fs.readFileSync(file)));
  } catch (error) {
    throw new DesiredStateError(`${file}: ${(error as Error).message}`);
  }
  const connection = specsOrFail(() => readSynthesizedConnection(config, file));
  const resources = resourcesOfConfig(config, file);
  checkAddresses(resources, name, file);
  return { stack: name, resources, ...(connection ? { connection } : {}) };
}

/**
 * The desired stack of a specs record, loaded as `loadDesired` loads the file it describes (the same objects in the
 * same order go through the same checks); undefined when anything in it fails to load, and the file, read in full,
 * then says what is wrong in its own words.
 */
function desiredOfRecord(recorded: RecordedSpecs, stack: string, file: string): DesiredStack | undefined {
  try {
    const connection = recorded.connection === undefined ? undefined : parseSynthesizedConnection(recorded.connection, file);
    const resources = recorded.specs.map((object) => desiredOfSpec(parseSynthesizedSpec(object, file), file));
    checkDependencies(resources, file);
    checkAddresses(resources, stack, file);
    return { stack, resources, ...(connection ? { connection } : {}) };
  } catch {
    return undefined;
  }
}

/** The secretform resources of a synthesized stack configuration (`cdk.tf.json` content). */
export function resourcesOfConfig(config: unknown, source: string): DesiredResource[] {
  const resources = specsOrFail(() => readSynthesizedSpecs(config, source)).map((entry) => desiredOfSpec(entry, source));
  checkDependencies(resources, source);
  return resources;
}

/** The desired resources of a list of synthesized spec objects (a saved plan keeps its desired state this way). */
export function resourcesOfSpecs(specs: readonly unknown[], source: string): DesiredResource[] {
  const resources = specs.map((value, index) => desiredOfSpec(specsOrFail(() => parseSynthesizedSpec(value, `${source}: resource ${index + 1}`)), source));
  checkDependencies(resources, source);
  return resources;
}

/** A connection as a saved plan keeps it (the object of `cdk.tf.json`), read back. */
export function connectionOfObject(value: unknown, source: string): DesiredConnection {
  return specsOrFail(() => parseSynthesizedConnection(value, source));
}

/** The object a saved plan keeps for a stack's connection (what `cdk.tf.json` holds). */
export function objectOfConnection(connection: DesiredConnection): Record<string, unknown> {
  return writeSynthesizedConnection(connection);
}

/** The synthesized spec object of a desired resource (what `cdk.tf.json` holds): secrets as references only. */
export function specOfDesiredResource(resource: DesiredResource): Record<string, unknown> {
  const secrets: SynthesizedSpec['secrets'] = Object.fromEntries(Object.entries(resource.secrets).map(([field, secret]) => {
    if (!secret.reference) {
      throw new DesiredStateError(`${resource.address}: secret "${field}" is SecretValue.unsafePlainText(...), which is never written to a file; use SecretValue.fromEnv or fromFile`);
    }
    return [field, secret.reference];
  }));
  return writeSynthesizedSpec({ ...resource, secrets });
}

function specsOrFail<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof SpecFormatError) throw new DesiredStateError(error.message);
    throw error;
  }
}

/** The secrets of a resource without any (most resources): one shared, frozen record. */
const NO_SECRETS: Readonly<Record<string, SecretValue>> = Object.freeze({});

function desiredOfSpec(entry: SynthesizedSpec, source: string): DesiredResource {
  const resourceType = findResourceType(entry.type);
  if (!resourceType) throw new DesiredStateError(`${source}: ${entry.address}: unknown resource type "${entry.type}"`);
  const unknown = unknownIgnoredFields(resourceType, entry.lifecycle);
  if (unknown.length > 0) {
    throw new DesiredStateError(`${source}: ${entry.address}: lifecycle.ignoreChanges names ${unknown.map((name) => JSON.stringify(name)).join(', ')}, not fields of ${entry.type}; "*" or its field names (synthesize again)`);
  }
  const fields = Object.keys(entry.secrets);
  const secrets = fields.length === 0 ? NO_SECRETS : Object.fromEntries(fields.map((field) => [field, SecretValue.fromReference(entry.secrets[field])]));
  return {
    // Frozen: a spec read from a file is a value for the run, so its canonical form is computed once (resources/define.ts).
    address: entry.address, type: entry.type, id: entry.id, spec: deepFreeze(entry.spec), secrets, dependsOn: entry.dependsOn, digest: entry.digest,
    ...(entry.lifecycle ? { lifecycle: entry.lifecycle } : {}),
    ...(entry.policyWaivers !== undefined ? { policyWaivers: entry.policyWaivers } : {}),
    ...(entry.source !== undefined ? { source: entry.source } : {}),
  };
}

/**
 * Every address is a construct path of the stack, as synth writes it: a hand-edited file cannot give an address
 * such as `constructor` (which state keyed by address would mistake for what every object inherits) nor one with
 * control characters (which a terminal would obey when a report prints it).
 */
function checkAddresses(resources: readonly DesiredResource[], stack: string, source: string): void {
  const problems = resources.flatMap((resource) => {
    const problem = addressProblem(resource.address, stack);
    return problem === undefined ? [] : [`address ${JSON.stringify(resource.address)} ${problem}`];
  });
  if (problems.length > 0) throw new DesiredStateError(`${source}: ${problems.join('; ')} (synthesize again: \`secretform synth\`)`);
}

function checkDependencies(resources: readonly DesiredResource[], source: string): void {
  const addresses = new Set(resources.map((resource) => resource.address));
  for (const resource of resources) {
    for (const dependency of resource.dependsOn) {
      if (!addresses.has(dependency)) throw new DesiredStateError(`${source}: ${resource.address} depends on ${dependency}, which is not in the stack`);
    }
  }
}
