/** Loads the desired state a run works from and checks it before any request is made. */
import { findResourceType } from '../../resources/registry';
import { connectionOfObject, loadDesired, resourcesOfSpecs, type DesiredStack } from './desired';
import type { EngineOptions } from './engine-options';
import { EngineError, fail, ok, type Result } from '../errors';

/** The desired resources of `stack`, checked: known types, ids that match their specs, one address per object. */
export function loadDesiredSource(options: Pick<EngineOptions, 'desired'>, stack: string): Result<DesiredStack> {
  let desired: DesiredStack;
  try {
    const source = options.desired;
    if (source.kind === 'loaded') desired = source.desired;
    else if (source.kind === 'specs') {
      const resources = resourcesOfSpecs(source.specs, 'saved plan');
      desired = source.connection === undefined
        ? { stack: source.stack, resources }
        : { stack: source.stack, resources, connection: connectionOfObject(source.connection, 'saved plan') };
    }
    else desired = loadDesired(source.outdir, stack);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return fail(new EngineError('desired_invalid', `invalid desired state: ${message}`));
  }
  if (desired.stack !== stack) {
    return fail(new EngineError('desired_invalid', `the desired stack is "${desired.stack}", but the run is for stack "${stack}"`));
  }
  const problems = desiredProblems(desired);
  if (problems.length > 0) {
    return fail(new EngineError('desired_invalid', `invalid desired state of stack ${stack}:\n  ${problems.join('\n  ')}`));
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
    let id: string;
    try {
      id = resourceType.id(resourceType.normaliseDesired(resource.spec));
    } catch (error) {
      problems.push(`${resource.address}: cannot compute the object's id from its spec (${(error as Error).message})`);
      continue;
    }
    if (id !== resource.id) problems.push(`${resource.address}: id "${resource.id}" does not match its spec (expected "${id}")`);
    const owner = owners.get(id);
    if (owner) problems.push(`${resource.address}: manages ${id}, which ${owner} manages too`);
    owners.set(id, resource.address);
    for (const field of Object.keys(resource.secrets)) {
      const spec = resourceType.fields.find((candidate) => candidate.api === field);
      if (!spec?.sensitive) problems.push(`${resource.address}: "${field}" is not a secret field of ${resource.type}`);
    }
  }
  for (const resource of desired.resources) {
    for (const dependency of resource.dependsOn) {
      if (!addresses.has(dependency)) problems.push(`${resource.address}: depends on ${dependency}, which is not in the stack`);
    }
  }
  return problems;
}
