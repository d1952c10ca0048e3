/**
 * Signing a saved plan over one stack or several (`plan --out`): every stack's plan gets a MAC with its own
 * stack's key over its content and over the set (plan-mac.ts), so that no stack of the set, with secrets or
 * without, and none of the set's own fields (its stacks, their order, their dependencies) can be changed after
 * the file was written without apply refusing it. A stack for which no key could be read or created carries no
 * MAC and says why (`unverified`).
 */
import { ownValue } from '../../own-keys';
import type { FingerprintKey } from '../state/fingerprint';
import { withSavedPlanMac, type SavedPlanSetContext } from './plan-mac';
import type { SavedPlan } from './saved-plan';
import type { SavedPlanSet } from './saved-plan-set';

/**
 * The set as apply runs it, which every stack's MAC covers: the stacks in the file's order, and each one's
 * dependencies as the file lists them (none when it lists none). A file of one stack is a set of that stack alone.
 */
export function savedPlanSetContext(set: Pick<SavedPlanSet, 'plans' | 'dependencies'>): SavedPlanSetContext {
  const stacks = set.plans.map((plan) => plan.stack);
  return { stacks, dependencies: Object.fromEntries(stacks.map((stack) => [stack, [...(ownValue(set.dependencies, stack) ?? [])]])) };
}

/** The set with every stack's plan signed with its stack's key (`keys`, by stack). */
export function signSavedPlanSet(plans: readonly SavedPlan[], dependencies: Record<string, string[]>, keys: ReadonlyMap<string, FingerprintKey>): SavedPlanSet {
  // A file of one stack holds no dependencies: it reads back as a set of that stack depending on nothing.
  const written = plans.length === 1 ? { [plans[0].stack]: [] } : dependencies;
  const context = savedPlanSetContext({ plans: [...plans], dependencies: written });
  return {
    plans: plans.map((plan) => {
      const key = keys.get(plan.stack);
      if (key === undefined) throw new Error(`internal error: no key to sign the saved plan of stack ${plan.stack}`);
      return withSavedPlanMac(plan, key, context);
    }),
    dependencies: written,
  };
}
