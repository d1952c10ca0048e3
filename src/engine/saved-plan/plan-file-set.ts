/**
 * Several saved plans as one set (`secretform show PLANFILE...`, `apply PLANFILE...`): a fleet's CI splits its
 * stacks across jobs, each job saves the plan of its stacks (`plan --stack X --out X.plan`), and one job joins the
 * files into one report or one apply. The set is what one `plan --out` over all those stacks would have saved:
 * each stack's plan once, and the dependencies between the stacks, those a file records between its own stacks
 * and those each stack's plan records on stacks of the app (`depends_on`), which may sit in another file.
 *
 * This step only joins: each file is read (and later checked: its MAC, staleness, connection) as it is alone.
 * A stack in two files is an error, whichever copy is newer: which one was reviewed cannot be told.
 */
import { EngineError, fail, ok, type Result } from '../errors';
import { ownValue, setOwn } from '../../own-keys';
import type { SavedPlan } from './saved-plan';
import type { SavedPlanSet } from './saved-plan-set';
import { savedPlanSetContext } from './sign-saved-plan-set';

/** A saved plan file as read (`readSavedPlanSet`), with the name it was given on the command line. */
export interface PlanFile {
  file: string;
  set: SavedPlanSet;
}

/**
 * The files' stacks as one set, sorted by name (the order runs give them before their dependencies order them),
 * each stack's dependencies among the set's stacks. Fails, naming both files, when a stack is in two of them.
 */
export function joinPlanFiles(files: readonly PlanFile[]): Result<SavedPlanSet> {
  const fileOf = new Map<string, string>();
  const setOf = new Map<string, SavedPlanSet>();
  const plans: SavedPlan[] = [];
  for (const { file, set } of files) {
    for (const plan of set.plans) {
      const first = fileOf.get(plan.stack);
      if (first !== undefined) {
        const where = first === file ? `twice in ${file}` : `in ${first} and in ${file}`;
        return fail(new EngineError('plan_file', `stack ${plan.stack} is ${where}, so nothing was read or changed: a stack's plan is applied once, from one file. Give each stack's plan once (plan each stack in one job only, \`secretform plan --stack ${plan.stack} --out PLANFILE\`)`));
      }
      fileOf.set(plan.stack, file);
      setOf.set(plan.stack, set);
      plans.push(plan);
    }
  }
  plans.sort((a, b) => (a.stack < b.stack ? -1 : a.stack > b.stack ? 1 : 0));
  const stacks = new Set(plans.map((plan) => plan.stack));
  const dependencies: Record<string, string[]> = {};
  for (const plan of plans) {
    const set = setOf.get(plan.stack)!;
    // A dependency on a stack no file holds was (or will be) applied by another run: it orders nothing here.
    const listed = [...(ownValue(set.dependencies, plan.stack) ?? []), ...(plan.depends_on ?? [])].filter((name) => stacks.has(name) && name !== plan.stack);
    setOwn(dependencies, plan.stack, [...new Set(listed)].sort());
  }
  // One context per file, shared by its stacks: each stack's MAC covers the set of the file it came from.
  const contexts = new Map(files.map(({ set }) => [set, savedPlanSetContext(set)]));
  const signedIn = new Map(plans.map((plan) => [plan.stack, contexts.get(setOf.get(plan.stack)!)!]));
  return ok({ plans, dependencies, signedIn });
}
