/** Loads the desired state a run works from and checks it before any request is made. */
import * as path from 'node:path';
import { desiredId } from '../../resources/define';
import { fieldValueProblems } from '../../resources/field-rules';
import { findResourceType } from '../../resources/registry';
import { fieldIndex } from '../../resources/field-index';
import type { ResourceType } from '../../resources/types';
import { reservedReferenceProblem } from '../../secret-value';
import { connectionOfObject, listSynthesizedStacks, loadDesired, resourcesOfSpecs, type DesiredStack } from './desired';
import type { EngineOptions } from './engine-options';
import { EngineError, fail, ok, type Result } from '../errors';

/**
 * The desired resources of `stack`, checked against the resource model before any request: known types and
 * fields, every value of the kind, range and length its field allows, ids that match their specs, one address
 * per object, no secret from secretform's own variables, dependencies inside the stack and without a cycle.
 * Every problem is reported at once, each naming the address and the field, under the file they come from.
 */
export function loadDesiredSource(options: Pick<EngineOptions, 'desired'>, stack: string): Result<DesiredStack> {
  const source = options.desired;
  // The CLI checks a stack's connection before the run, and the run prepares the stack again: a synth output read
  // and validated once per run is about 0.3 s less of a plan of 10,000 resources. Files only: an in-memory source
  // belongs to the caller, who may change it between runs.
  if (source.kind !== 'synth-output') return loadAndCheck(source, stack);
  let loaded = loadedOutputs.get(source);
  if (!loaded) loadedOutputs.set(source, (loaded = { byStack: new Map<string, Result<DesiredStack>>() }));
  let result = loaded.byStack.get(stack);
  if (!result) loaded.byStack.set(stack, (result = loadAndCheck(source, stack, loaded)));
  return result;
}

/**
 * Forgets the loaded desired state of `stack` (of a synth output): for a run over many stacks once that stack's
 * run is done with it. A run over 100 stacks loads and checks all of them before its first request; kept to the
 * end, every one stays in the old generation that each full GC marks while later stacks read and diff. Loading it
 * again later reads the file again (and checks it again).
 */
export function releaseDesiredSource(options: Pick<EngineOptions, 'desired'>, stack: string): void {
  const source = options.desired;
  if (source.kind === 'synth-output') loadedOutputs.get(source)?.byStack.delete(stack);
}

/** A synth output read in this process: its manifest's stacks (read once), and each stack loaded and checked. */
interface LoadedOutput {
  stacks?: readonly string[];
  byStack: Map<string, Result<DesiredStack>>;
}

/** The synth outputs read in this process, by source object (see `loadDesiredSource`). */
const loadedOutputs = new WeakMap<EngineOptions['desired'], LoadedOutput>();

function loadAndCheck(source: EngineOptions['desired'], stack: string, output?: LoadedOutput): Result<DesiredStack> {
  let desired: DesiredStack;
  try {
    if (source.kind === 'loaded') desired = source.desired;
    else if (source.kind === 'specs') {
      const resources = resourcesOfSpecs(source.specs, 'saved plan');
      desired = source.connection === undefined
        ? { stack: source.stack, resources }
        : { stack: source.stack, resources, connection: connectionOfObject(source.connection, 'saved plan') };
    }
    else {
      // The manifest once per output, not once per stack (a run over a fleet loads every stack in turn).
      if (output) output.stacks ??= listSynthesizedStacks(source.outdir);
      desired = loadDesired(source.outdir, stack, output?.stacks);
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return fail(new EngineError('desired_invalid', `invalid desired state: ${message}`));
  }
  if (desired.stack !== stack) {
    return fail(new EngineError('desired_invalid', `the desired stack is "${desired.stack}", but the run is for stack "${stack}"`));
  }
  const problems = [...desiredProblems(desired), ...cycleProblems(desired)];
  if (problems.length > 0) {
    const count = `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
    return fail(new EngineError('desired_invalid', `invalid desired state of stack ${stack} (${describeSource(source, stack)}), ${count}; nothing was sent:\n  ${problems.join('\n  ')}`));
  }
  return ok(desired);
}

function desiredProblems(desired: DesiredStack): string[] {
  const problems: string[] = [];
  const addresses = new Set<string>();
  const owners = new Map<string, string>();
  for (const resource of desired.resources) {
    if (addresses.has(resource.address)) problems.push(`${resource.address}: the address appears twice`);
    addresses.add(resource.address);
    const resourceType = findResourceType(resource.type);
    if (!resourceType) {
      problems.push(`${resource.address}: unknown resource type "${resource.type}"`);
      continue;
    }
    const fieldProblems = specProblems(resource.address, resourceType, resource.spec);
    problems.push(...fieldProblems);
    let id: string;
    try {
      // A spec with problems is made canonical in full, as before: a wrong value in another field (one that is
      // not JSON, in a stack given in memory) may make that fail, and then no id is checked.
      id = fieldProblems.length === 0 ? desiredId(resourceType, resource.spec) : resourceType.id(resourceType.normaliseDesired(resource.spec));
    } catch (error) {
      // A spec with wrong values has no id to speak of: its field problems say what to fix.
      if (fieldProblems.length === 0) problems.push(`${resource.address}: cannot compute the object's id from its spec (${(error as Error).message})`);
      continue;
    }
    if (fieldProblems.length === 0 && id !== resource.id) problems.push(`${resource.address}: id "${resource.id}" does not match its spec (expected "${id}")`);
    const owner = owners.get(id);
    if (owner) problems.push(`${resource.address}: manages ${id}, which ${owner} manages too`);
    owners.set(id, resource.address);
    for (const field of Object.keys(resource.secrets)) {
      const spec = fieldIndex(resourceType.fields).byApi.get(field);
      if (!spec?.sensitive) problems.push(`${resource.address}: "${field}" is not a secret field of ${resource.type}`);
      const reserved = reservedReferenceProblem(resource.secrets[field].reference);
      if (reserved) problems.push(`${resource.address}: secret "${field}": ${reserved}`);
    }
  }
  for (const resource of desired.resources) {
    for (const dependency of resource.dependsOn) {
      if (!addresses.has(dependency)) problems.push(`${resource.address}: depends on ${dependency}, which is not in the stack`);
    }
  }
  return problems;
}

/** Every field of a spec against the resource model: known, settable in code, of its kind, range and length. */
function specProblems(address: string, resourceType: ResourceType, spec: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  const fields = fieldIndex(resourceType.fields);
  for (const name of Object.keys(spec)) {
    const value = spec[name];
    const field = fields.byApi.get(name);
    if (!field) {
      problems.push(`${address}: ${name}: not a field of ${resourceType.type}; fields: ${fields.settable.map((known) => known.api).join(', ')}`);
    } else if (field.sensitive) {
      problems.push(`${address}: ${name}: a secret field given as a plain value; only a {"$secret": {"env"|"file": ...}} reference may be given`);
    } else if (field.computed) {
      problems.push(`${address}: ${name}: reported by the service, never set in code`);
    } else {
      for (const problem of fieldValueProblems(field, value)) problems.push(`${address}: ${name}: received ${shortValue(value)}; ${problem}`);
    }
  }
  for (const field of fields.required) {
    if (spec[field.api] === undefined) problems.push(`${address}: ${field.api}: required`);
  }
  return problems;
}

/** A value for a message: JSON, cut short (a 10 MB string is shown by its start and length only). */
function shortValue(value: unknown): string {
  const text = JSON.stringify(typeof value === 'string' && value.length > 60 ? value.slice(0, 60) : value) ?? String(value);
  return typeof value === 'string' && value.length > 60 ? `${text.slice(0, -1)}..." (${value.length} characters)` : text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Each dependency cycle, named by its addresses in order (`a -> b -> a`); apply could never order them. */
function cycleProblems(desired: DesiredStack): string[] {
  const dependsOn = new Map(desired.resources.map((resource) => [resource.address, resource.dependsOn]));
  const state = new Map<string, 'visiting' | 'done'>();
  const cycles: string[] = [];
  // The addresses being visited, in order (one array for the whole walk, not a copy per step).
  const path: string[] = [];
  const visit = (address: string): void => {
    if (state.get(address) === 'done') return;
    if (state.get(address) === 'visiting') {
      const cycle = [...path.slice(path.indexOf(address)), address];
      cycles.push(`dependency cycle: ${cycle.join(' -> ')}; apply could not order these objects: remove one of the dependencies`);
      return;
    }
    state.set(address, 'visiting');
    path.push(address);
    for (const dependency of dependsOn.get(address) ?? []) if (dependsOn.has(dependency)) visit(dependency);
    path.pop();
    state.set(address, 'done');
  };
  for (const address of dependsOn.keys()) visit(address);
  return cycles;
}

function describeSource(source: EngineOptions['desired'], stack: string): string {
  if (source.kind === 'specs') return 'from the saved plan';
  if (source.kind === 'loaded') return 'from the stack given in memory';
  return `from ${path.join(source.outdir, 'stacks', stack, 'cdk.tf.json')}`;
}
