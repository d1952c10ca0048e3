/**
 * A drifted field's live value as the history keeps it: a digest, never the value. With the run's fingerprint
 * key (SECRETFORM_STATE_KEY, or the stack's key: state/fingerprint-key-source.ts) it is a keyed MAC, so the history
 * alone cannot be tested against guesses; that is what a masked (secret) field always gets. A run without any key
 * falls back to SHA-256 for the fields a plan shows in clear anyway (their values are in the state too) and
 * records a masked field by its marker only ("differs"), which can tell that it drifted, not that it drifted again.
 */
import { createHash } from 'node:crypto';
import { stableStringify } from '../plan/diff/values';
import type { FingerprintKey } from '../state/fingerprint';
import type { DriftEntry } from '../plan/plan';
import type { FieldDigests } from './history';

const PURPOSE = 'secretform drift field';
/** What the engine puts in a drift entry for a masked field (plan/resource-diff.ts): a marker, not the value. */
const MASKED_MARKER = /^\(sensitive/;
/** The field a health kind's `detail` (what the service reported) is kept under. */
export const HEALTH_FIELD = '(status)';

export function fieldDigests(entry: DriftEntry, key: FingerprintKey): FieldDigests {
  const digests: FieldDigests = {};
  for (const field of entry.fields) digests[field.field] = digestOf(entry.address, field.field, field.live, key);
  if (entry.detail !== undefined) digests[HEALTH_FIELD] = digestOf(entry.address, HEALTH_FIELD, entry.detail, key);
  return digests;
}

function digestOf(address: string, field: string, live: unknown, key: FingerprintKey): string {
  const text = `${address}\n${field}\n${stableStringify(live)}`;
  const keyed = key.mac(PURPOSE, text);
  if (keyed !== undefined) return `mac:${key.keyId}:${keyed}`;
  if (typeof live === 'string' && MASKED_MARKER.test(live)) return 'masked:differs';
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('base64url')}`;
}

/** Whether two recorded drifts are the same drift: the same kind, the same fields with the same digests. */
export function sameDrift(a: { kind: string; fields: FieldDigests }, b: { kind: string; fields: FieldDigests }): boolean {
  if (a.kind !== b.kind) return false;
  const names = Object.keys(a.fields);
  if (names.length !== Object.keys(b.fields).length) return false;
  return names.every((name) => b.fields[name] === a.fields[name]);
}
