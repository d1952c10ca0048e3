/**
 * A saved plan over several stacks (`secretform plan --out PLANFILE` on a run of more than one stack): one file
 * holding each stack's saved plan in the per-stack format, and the dependencies between the stacks, so that
 * `apply PLANFILE` runs them in order without synthesizing. A file of one stack is the per-stack saved plan
 * alone, as before, and reads as a set of one.
 */
import { promises as fs } from 'node:fs';
import { writeFileAtomically } from '../../lazy-packages';
import { lazy } from '../../lazy-zod';
import { EngineError, fail, ok, type Result } from '../errors';
import type { SavedPlanSetContext } from './plan-mac';
import { newerOrUnknownVersion, parseSavedPlan, readSavedPlan, writeSavedPlan, type SavedPlan } from './saved-plan';

export const SAVED_PLAN_SET_FORMAT = 'secretform-saved-plans';
/**
 * Stays 1 while each stack's plan carries its own version (saved-plan.ts): a reader of an older secretform then
 * reaches the stacks and says they are of a newer version, rather than failing on the set's version. The set's
 * own fields (the stacks, their order and dependencies) are covered by every stack's MAC from stack version 2 on.
 */
export const SAVED_PLAN_SET_VERSION = 1;

export interface SavedPlanSet {
  /** One per stack, in the order the stacks run. */
  plans: SavedPlan[];
  /** By stack, the stacks of the set it depends on. */
  dependencies: Record<string, string[]>;
  /**
   * Only for a set joined from several files (plan-file-set.ts), never written: by stack, the set its own file
   * held, which its MAC covers. The joined set's order and dependencies come from those sets and each plan's
   * `depends_on`, all under the MACs.
   */
  signedIn?: ReadonlyMap<string, SavedPlanSetContext>;
}

const setSchema = lazy((z) => z.object({
  format: z.literal(SAVED_PLAN_SET_FORMAT),
  format_version: z.number(),
  created_at: z.string(),
  dependencies: z.record(z.string(), z.array(z.string())),
  stacks: z.array(z.unknown()).min(1),
}));

/** Writes the set atomically, readable by its owner only; a set of one stack is written as that stack's plan. */
export async function writeSavedPlanSet(file: string, set: SavedPlanSet): Promise<Result<void>> {
  if (set.plans.length === 1) return writeSavedPlan(file, set.plans[0]);
  const content = {
    format: SAVED_PLAN_SET_FORMAT,
    format_version: SAVED_PLAN_SET_VERSION,
    created_at: new Date().toISOString(),
    dependencies: set.dependencies,
    stacks: set.plans,
  };
  try {
    await writeFileAtomically(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
    return ok(undefined);
  } catch (error) {
    return fail(new EngineError('plan_file', `cannot write the saved plan ${file}: ${(error as Error).message}`));
  }
}

/** Reads a saved plan of one stack or of several; errors say what is wrong with the file. */
export async function readSavedPlanSet(file: string): Promise<Result<SavedPlanSet>> {
  let json: unknown;
  try {
    json = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch {
    json = undefined;
  }
  if ((json as { format?: unknown } | undefined)?.format !== SAVED_PLAN_SET_FORMAT) {
    // One stack's plan (or not a plan at all: its reader says why).
    const single = await readSavedPlan(file);
    return single.ok ? ok({ plans: [single.value], dependencies: { [single.value.stack]: [] } }) : single;
  }
  const version = (json as { format_version?: unknown }).format_version;
  if (version !== SAVED_PLAN_SET_VERSION) return fail(newerOrUnknownVersion(file, version, SAVED_PLAN_SET_VERSION, [SAVED_PLAN_SET_VERSION]));
  const parsed = setSchema().safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail(new EngineError('plan_file', `${file} is not a secretform saved plan (at ${issue.path.join('.') || '(root)'}: ${issue.message}); make one with \`secretform plan --out ${file}\``));
  }
  const plans: SavedPlan[] = [];
  for (const [index, entry] of parsed.data.stacks.entries()) {
    const plan = parseSavedPlan(entry, `${file} (stacks.${index})`);
    if (!plan.ok) return plan;
    plans.push(plan.value);
  }
  const names = new Set(plans.map((plan) => plan.stack));
  if (names.size !== plans.length) return fail(new EngineError('plan_file', `${file} holds a stack twice; make a new one with \`secretform plan --out ${file}\``));
  const unknown = Object.values(parsed.data.dependencies).flat().find((name) => !names.has(name));
  if (unknown !== undefined) return fail(new EngineError('plan_file', `${file}: a dependency names stack "${unknown}", which the file does not hold; make a new one with \`secretform plan --out ${file}\``));
  return ok({ plans, dependencies: parsed.data.dependencies });
}
