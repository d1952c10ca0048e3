/**
 * The command line an error's advice tells the user to run next (``Run `secretform plan --stack 'prod-*' --target
 * prod/kv/app` to see what is left``): the command with the run's selection, its `--stack` and `--target` flags,
 * so that pasted as it is it covers what the run covered. Without them an apply of several stacks is refused,
 * an apply of one stack of several is refused too, and a plan or apply after `--target` covers everything.
 */
import { shellQuote } from './operation-output';

/** What a run covered, as the flags that choose it again. */
export interface RunSelection {
  /** `--stack` values as the user gave them (patterns too); none when no other stack could be meant. */
  stacks: readonly string[];
  /** `--target` addresses as the user gave them. */
  targets: readonly string[];
}

/** A run of the only stack there is, without targets: its advice names no flag. */
export const WHOLE_RUN: RunSelection = { stacks: [], targets: [] };

/** `secretform apply --stack staging --stack 'prod-*' --target staging/kv/app`: `command` over `selection`. */
export function rerunCommand(command: string, selection: RunSelection): string {
  const flags = [...selection.stacks.map((stack) => `--stack ${shellWord(stack)}`), ...selection.targets.map((target) => `--target ${shellWord(target)}`)];
  return ['secretform', command, ...flags].join(' ');
}

/**
 * A value as it can be pasted: a plain name or address as it is, anything else (a pattern the shell would expand,
 * a quote, a space) quoted, as the docs tell users to quote patterns.
 */
function shellWord(value: string): string {
  return /^[\w./:@-]+$/.test(value) ? value : shellQuote(value);
}
