/**
 * What a policy's `check` returned, judged: its violations (nothing counts as none), or what is wrong with it.
 * The same judgement runs in this process, in the pack host's worker, and here again on the host's answers
 * (the host runs code nobody vouches for: its answers are read as input).
 */
import type { PolicyViolation } from './policy';

export type CheckOutcome = { readonly ok: true; readonly violations: PolicyViolation[] } | { readonly ok: false; readonly problem: string };

export function checkOutcomeOf(returned: unknown): CheckOutcome {
  if (returned === undefined || returned === null) return { ok: true, violations: [] };
  const wrong: CheckOutcome = { ok: false, problem: `check returned ${describeValue(returned)}; it must return an array of { message: string, field?: string } (empty or nothing when the resource passes)` };
  if (!Array.isArray(returned)) return wrong;
  const violations: PolicyViolation[] = [];
  for (const entry of returned as unknown[]) {
    if (typeof entry !== 'object' || entry === null) return wrong;
    // Each property read once: a getter cannot show one value to this check and another to the reports.
    const { message, field } = entry as { message?: unknown; field?: unknown };
    if (typeof message !== 'string' || (field !== undefined && typeof field !== 'string')) return wrong;
    violations.push(field === undefined ? { message } : { message, field });
  }
  return { ok: true, violations };
}

/** A short JSON rendering of a value for an error message (anything JSON cannot render, by its type). */
export function describeValue(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // A BigInt, a cycle: the type says enough.
  }
  text ??= typeof value;
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
