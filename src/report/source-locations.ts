/**
 * Where the code declares each resource of a plan (the construct's creation site, carried by the plan's
 * changes): SARIF results and the markdown's policy section point there, so a review lands on that line.
 */
import type { Plan } from '../engine/plan/plan';
import type { SourceLocation } from '../synthesized-spec';

/** The known creation sites of a plan's resources, by address (resources without one are absent). */
export function sourcesByAddress(plan: Plan): ReadonlyMap<string, SourceLocation> {
  const sources = new Map<string, SourceLocation>();
  for (const change of plan.changes) if (change.source !== undefined) sources.set(change.address, change.source);
  return sources;
}

/** `main.ts:12`, as a reader (and an editor's "go to file") takes it. */
export function sourceLabel(source: SourceLocation): string {
  return `${source.file}:${source.line}`;
}
