/**
 * The saved plans `show` and `apply` are given: one file, read as it always was, or several (one per CI job of a
 * fleet) joined into the one set a plan over all their stacks would have saved, in the order such a run takes
 * the stacks. Reads the files only.
 */
import * as path from 'node:path';
import { joinPlanFiles, ok, orderSavedPlanSet, readSavedPlanSet, type PlanFile, type Result, type SavedPlanSet } from '../../engine';

/** The plans of the files as one set, and for each stack the file (as given) it came from. */
export interface PlanFiles {
  set: SavedPlanSet;
  fileOf: (stack: string) => string;
  /** The files as given, in that order. */
  files: readonly string[];
}

/** Reads every file (the first bad one fails, named) and joins them; a stack in two files is an error. */
export async function readPlanFiles(files: readonly string[], cwd: string): Promise<Result<PlanFiles>> {
  const read: PlanFile[] = [];
  for (const file of files) {
    const one = await readSavedPlanSet(path.resolve(cwd, file));
    if (!one.ok) return one;
    read.push({ file, set: one.value });
  }
  const fileOf = (stack: string) => read.find(({ set }) => set.plans.some((plan) => plan.stack === stack))?.file ?? files[0];
  if (read.length === 1) return ok({ set: read[0].set, fileOf, files });
  const joined = joinPlanFiles(read);
  if (!joined.ok) return joined;
  const ordered = orderSavedPlanSet(joined.value);
  if (!ordered.ok) return ordered;
  return ok({ set: ordered.value, fileOf, files });
}
