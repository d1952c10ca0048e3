/**
 * Which stacks of a synth output a command works on: `--stack` is repeatable and takes glob patterns
 * (`prod-*`, `*`). Without `--stack`, a read-only command covers every stack, and a command that changes the
 * service refuses an output of several stacks, so that nobody applies every environment by forgetting a flag.
 */
import { globs } from '../../lazy-packages';
import { EngineError, fail, ok, type Result } from '../errors';
import { DesiredStateError, listSynthesizedStacks } from '../setup/desired';

/** What the command does with the stacks it selects. */
export type SelectionUse = 'read' | 'change';

/**
 * The stacks `patterns` select among `available` (each pattern must match at least one), in the order of
 * `available`. No pattern: every stack when `use` is `read` or there is only one; else an error listing them.
 */
export function selectStacks(available: readonly string[], patterns: readonly string[], use: SelectionUse, command: string): Result<string[]> {
  const listed = available.length > 0 ? available.join(', ') : 'none';
  if (available.length === 0) return fail(new EngineError('desired_invalid', `the synth output holds no stack; stacks: ${listed}`));
  if (patterns.length === 0) {
    if (use === 'read' || available.length === 1) return ok([...available]);
    return fail(new EngineError(
      'desired_invalid',
      `the synth output holds ${available.length} stacks (${listed}); ${command} changes the service, so name the stacks: --stack NAME (repeatable, glob patterns such as 'prod-*'; '*' for every stack)`,
    ));
  }
  const chosen = new Set<string>();
  for (const pattern of patterns) {
    const matches = available.filter((stack) => globs().isMatch(stack, pattern, { dot: true }));
    if (matches.length === 0) {
      const what = isStackPattern(pattern) ? `--stack '${pattern}' matches no stack` : `there is no stack "${pattern}"`;
      return fail(new EngineError('desired_invalid', `${what}; stacks: ${listed}`));
    }
    for (const stack of matches) chosen.add(stack);
  }
  return ok(available.filter((stack) => chosen.has(stack)));
}

/** Whether a `--stack` value is a glob pattern (`prod-*`, `{a,b}`) rather than a stack's name. */
export function isStackPattern(value: string): boolean {
  return globs().scan(value).isGlob;
}

/** `selectStacks` over the stacks of the synth output `outdir` (its `manifest.json`). */
export function selectSynthesizedStacks(outdir: string, patterns: readonly string[], use: SelectionUse, command: string): Result<string[]> {
  let available: string[];
  try {
    available = listSynthesizedStacks(outdir);
  } catch (error) {
    return fail(new EngineError('desired_invalid', error instanceof DesiredStateError ? error.message : String(error)));
  }
  return selectStacks(available, patterns, use, command);
}

/**
 * `--target` in a run over several stacks: an address's first segment is its stack, so each stack gets the
 * targets in it, and a stack that holds none is left out of the run. No targets: every stack, unchanged.
 */
export function narrowToTargets(stacks: readonly string[], targets: readonly string[] | undefined): Result<{ stacks: string[]; targetsOf: (stack: string) => string[] | undefined }> {
  if (targets === undefined || targets.length === 0) return ok({ stacks: [...stacks], targetsOf: () => undefined });
  const targetsOf = (stack: string) => targets.filter((target) => target.startsWith(`${stack}/`));
  const outside = targets.filter((target) => !stacks.some((stack) => target.startsWith(`${stack}/`)));
  if (outside.length > 0) {
    return fail(new EngineError('address_unknown', `--target ${outside.join(', ')}: not an address of the stacks of this run (${stacks.join(', ')}); an address starts with its stack's name`));
  }
  return ok({ stacks: stacks.filter((stack) => targetsOf(stack).length > 0), targetsOf });
}

/**
 * The stacks `patterns` select in the synth output `outdir` (`selectSynthesizedStacks`), and `chosenBy`: the
 * `--stack` values that choose the same stacks again, for a command an error's advice gives: the ones given, or
 * none when the output holds no other stack than the one chosen, so that a run of the only stack keeps its
 * advice as it always was. (One stack of several keeps its --stack: without it, apply and destroy refuse to
 * guess, and plan covers them all.)
 */
export function chooseSynthesizedStacks(outdir: string, patterns: readonly string[], use: SelectionUse, command: string): Result<{ stacks: string[]; chosenBy: readonly string[] }> {
  const selected = selectSynthesizedStacks(outdir, patterns, use, command);
  if (!selected.ok) return selected;
  const stacks = selected.value;
  if (stacks.length > 1) return ok({ stacks, chosenBy: patterns });
  const others = patterns.length > 0 && holdsOtherStacks(outdir, stacks[0], command);
  return ok({ stacks, chosenBy: others ? patterns : [] });
}

/** Whether the synth output `outdir`, just read, holds a stack besides `stack`. */
function holdsOtherStacks(outdir: string, stack: string, command: string): boolean {
  const every = selectSynthesizedStacks(outdir, [], 'read', command);
  return every.ok && every.value.some((name) => name !== stack);
}

/**
 * Why `stack`, given as `--stack` to a command of one stack, names no stack of the synth output `outdir`, or
 * undefined when it names one. Such a command takes a stack's name, not a pattern: a pattern that matches one
 * stack today may match two tomorrow, and then "the first" or "the last" would be a guess. A pattern is refused
 * with the stacks it matches, and a name of no stack with the stacks there are, as plan and apply report them.
 */
export function oneStackNameProblem(outdir: string, stack: string, command: string): EngineError | undefined {
  const selected = selectSynthesizedStacks(outdir, [stack], 'read', command);
  if (!selected.ok) return selected.error;
  if (selected.value.length === 1 && selected.value[0] === stack) return undefined;
  return patternRefusal(stack, selected.value, command);
}

/**
 * Why `stack`, given as `--stack` to a state command or force-unlock, is not a stack's name, or undefined. These
 * take a pattern no more than the other commands of one stack do (refused as `oneStackNameProblem` refuses it),
 * but they do take a name the synth output lacks, or with no synth output at all: a stack's state outlives its
 * code (`state pull`, `state rm` after the stack left the app) and is moved between machines without it.
 */
export function stateStackNameProblem(outdir: string, stack: string, command: string): EngineError | undefined {
  if (!isStackPattern(stack)) return undefined;
  const selected = selectSynthesizedStacks(outdir, [stack], 'read', command);
  if (selected.ok && selected.value.length === 1 && selected.value[0] === stack) return undefined;
  return patternRefusal(stack, selected.ok ? selected.value : [], command);
}

/** The refusal of a pattern given to a command of one stack, with the stacks it matches (none when unknown). */
function patternRefusal(stack: string, matching: readonly string[], command: string): EngineError {
  const matches = matching.length > 0 ? `, matching ${matching.join(', ')}` : '';
  const names = matching.length > 0 ? `: ${matching.map((name) => `--stack ${name}`).join(' or ')}` : '';
  return new EngineError('desired_invalid', `--stack '${stack}' is a pattern${matches}; ${command} works on one stack and takes its name${names} (patterns are for plan, apply, destroy, show and graph)`);
}
