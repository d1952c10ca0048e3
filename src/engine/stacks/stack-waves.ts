/**
 * The wave of each stack of a list (the `wave` of `secretform stacks --format github-matrix`): how many stacks of
 * the list lie on its longest chain of dependencies, so a CI job of wave N runs once the jobs of the waves before
 * it are done. A dependency left out of the list (unchanged, or not selected) orders nothing by itself, but the
 * listed stacks beneath it still do: if C depends on B which depends on A, and A and C are listed, C comes after A.
 */
import type { StackDependencies } from './stack-order';

/**
 * By listed stack, its wave (0: none of the listed stacks lies beneath it). `dependencies` covers every stack
 * of the app (the manifest's), so that a chain through a stack that is not listed is followed. A cycle is the
 * caller's to refuse first (`orderStacks`); here it is cut where it closes.
 */
export function stackWaves(listed: readonly string[], dependencies: StackDependencies): Map<string, number> {
  const isListed = new Set(listed);
  // By stack: the most listed stacks on a chain beneath it (itself not counted).
  const below = new Map<string, number>();
  const visiting = new Set<string>();
  const depth = (stack: string): number => {
    const known = below.get(stack);
    if (known !== undefined) return known;
    if (visiting.has(stack)) return 0;
    visiting.add(stack);
    let deepest = 0;
    for (const dependency of dependencies.get(stack) ?? []) {
      deepest = Math.max(deepest, depth(dependency) + (isListed.has(dependency) ? 1 : 0));
    }
    visiting.delete(stack);
    below.set(stack, deepest);
    return deepest;
  };
  return new Map(listed.map((stack) => [stack, depth(stack)]));
}
