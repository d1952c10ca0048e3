/**
 * The order stacks run in: a stack after the stacks it depends on (cdktf's `stack.addDependency`, which
 * cross-stack references add too; `manifest.json` lists them per stack), reversed for destroy. A cycle is an
 * error that names it, found before any request.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EngineError, fail, ok, type Result } from '../errors';
import type { SavedPlanSet } from '../saved-plan/saved-plan-set';
import { ownValue } from '../../own-keys';

/** By stack, the stacks it depends on (only among those given). */
export type StackDependencies = ReadonlyMap<string, readonly string[]>;

/** The dependencies of `stacks` as the synth output's manifest records them; other stacks are left out. */
export function readStackDependencies(outdir: string, stacks: readonly string[]): Result<StackDependencies> {
  const inApp = readAppDependencies(outdir, stacks);
  if (!inApp.ok) return inApp;
  const selected = new Set(stacks);
  // A dependency that is not selected has been (or will be) run by another command: it orders nothing here.
  return ok(new Map([...inApp.value].map(([stack, listed]) => [stack, listed.filter((name) => selected.has(name))])));
}

/**
 * The dependencies of `stacks` as the manifest records them, on any stack of the app (selected or not): what a
 * saved plan of some of the stacks records, so that plan files made by separate runs can be ordered together.
 */
export function readAppDependencies(outdir: string, stacks: readonly string[]): Result<StackDependencies> {
  const manifestPath = path.join(outdir, 'manifest.json');
  let manifest: { stacks?: Record<string, { dependencies?: unknown }> };
  try {
    manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as typeof manifest;
  } catch (error) {
    return fail(new EngineError('desired_invalid', `${manifestPath}: ${(error as Error).message}`));
  }
  const dependencies = new Map<string, string[]>();
  for (const stack of stacks) {
    const listed = manifest.stacks?.[stack]?.dependencies ?? [];
    if (!Array.isArray(listed) || listed.some((entry) => typeof entry !== 'string')) {
      return fail(new EngineError('desired_invalid', `${manifestPath}: stacks.${stack}.dependencies must be a list of stack names`));
    }
    dependencies.set(stack, (listed as string[]).filter((name) => name !== stack));
  }
  return ok(dependencies);
}

/** The stacks with every stack after its dependencies (ties in the order given); a cycle is an error naming it. */
export function orderStacks(stacks: readonly string[], dependencies: StackDependencies): Result<string[]> {
  const ordered: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (stack: string, trail: string[]): string[] | undefined => {
    const seen = state.get(stack);
    if (seen === 'done') return undefined;
    if (seen === 'visiting') return [...trail.slice(trail.indexOf(stack)), stack];
    state.set(stack, 'visiting');
    for (const dependency of dependencies.get(stack) ?? []) {
      const cycle = visit(dependency, [...trail, stack]);
      if (cycle) return cycle;
    }
    state.set(stack, 'done');
    ordered.push(stack);
    return undefined;
  };
  for (const stack of stacks) {
    const cycle = visit(stack, []);
    if (cycle) {
      return fail(new EngineError(
        'desired_invalid',
        `the stacks depend on each other in a cycle: ${cycle.join(' -> ')} (each depends on the next); remove one of these dependencies (stack.addDependency or a cross-stack reference)`,
      ));
    }
  }
  return ok(ordered);
}

/** The dependencies turned around: by stack, the stacks that depend on it (the order destroy runs in). */
export function reverseDependencies(dependencies: StackDependencies): StackDependencies {
  const reversed = new Map<string, string[]>([...dependencies.keys()].map((stack) => [stack, []]));
  for (const [stack, needs] of dependencies) for (const dependency of needs) reversed.get(dependency)?.push(stack);
  return reversed;
}

/** The set's plans in the order a run over its stacks takes them: every stack after its dependencies. */
export function orderSavedPlanSet(set: SavedPlanSet): Result<SavedPlanSet> {
  const stacks = set.plans.map((plan) => plan.stack);
  const order = orderStacks(stacks, new Map(stacks.map((stack) => [stack, ownValue(set.dependencies, stack) ?? []])));
  if (!order.ok) return order;
  const byStack = new Map(set.plans.map((plan) => [plan.stack, plan]));
  return ok({ ...set, plans: order.value.map((stack) => byStack.get(stack)!) });
}
