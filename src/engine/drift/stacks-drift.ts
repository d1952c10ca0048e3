/**
 * `drift` over a stack set: each stack's read-only check (drift/drift-check.ts: the refresh-only plan, the
 * statuses, the record in its history) through the scheduler every command uses. A check reads only and needs
 * nothing of another stack's check, so no stack waits for another (the manifest's dependencies order nothing
 * here) and a failed check skips none: every stack is checked and reported on its own, in the set's order, the
 * stacks at the same time. A run of one stack is a set of one.
 */
import { checkStackDrift, type DriftCheckOptions, type StackDriftCheck } from './drift-check';
import { ok, type Result } from '../errors';
import { withRunLimits } from '../setup/run-limits';
import { stackSetOf, type StackSetOptions } from '../stacks/stack-set';
import { runStacksInOrder, type StackOutcome } from '../stacks/stack-scheduler';

/** Each stack's check (or why it failed), in the set's order. Fails before any request on a bad selection. */
export async function driftCheck(givenOptions: StackSetOptions, check: DriftCheckOptions): Promise<Result<StackOutcome<StackDriftCheck>[]>> {
  // The stacks' checks share one request budget per server and one deadline, as the stacks of a plan do.
  const options = withRunLimits(givenOptions);
  const set = stackSetOf(options);
  if (!set.ok) return set;
  const { stacks: _stacks, ...shared } = options;
  // One time for the whole run: every stack's check is recorded as seen at the same moment.
  const now = check.now ?? new Date();
  const noneWaits = new Map<string, string[]>();
  return ok(await runStacksInOrder(set.value.stacks, noneWaits, (stack) => checkStackDrift({ ...shared, stack }, { ...check, now })));
}
