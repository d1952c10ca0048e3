/**
 * Where each secret of a resource stands. The service never returns secrets, so the desired value is compared
 * with the fingerprint of the value last applied (state), unless the type's `verifySecret` hook can check it
 * against what the server reports of it.
 */
import type { ResourceType } from '../../resources/types';
import { compareSecret, STATE_KEY_ENV, type FingerprintKey } from '../state/fingerprint';
import type { SecretFieldStatus } from './plan';

export interface SecretComparisonInput {
  address: string;
  resourceType: ResourceType;
  /** Resolved desired values by field. */
  desired: Readonly<Record<string, string>>;
  /** Fingerprints recorded in state for this object (none when it was never applied). */
  recorded: Readonly<Record<string, string>> | undefined;
  /** Root credentials the service rotated, by field, with when (state's `rotated_by_service`). */
  rotatedByService?: Readonly<Record<string, string>>;
  /** The object is (re-)created: every secret is written. */
  creating: boolean;
  /** The server's answer for the object, unwrapped (for the type's `verifySecret` hook). */
  liveData: Record<string, unknown> | null;
  fingerprintKey: FingerprintKey;
}

export interface SecretComparison {
  readonly statuses: readonly SecretFieldStatus[];
  /** Fields whose desired value must be written (changed, drifted, or never recorded). */
  readonly changed: readonly string[];
  /** Non-fatal notes for the plan. */
  readonly warnings: readonly string[];
  /** Root credentials rotated by the service whose value in code changed since: written on purpose. */
  readonly handedBack: readonly string[];
}

/** The comparison of an object without a secret in code (most objects): shared, frozen. */
const NO_SECRETS: SecretComparison = Object.freeze({ statuses: Object.freeze([]), changed: Object.freeze([]), warnings: Object.freeze([]), handedBack: Object.freeze([]) });

export function compareSecrets(input: SecretComparisonInput): SecretComparison {
  if (!hasAnyKey(input.desired)) return NO_SECRETS;
  const statuses: SecretFieldStatus[] = [];
  const changed: string[] = [];
  const warnings: string[] = [];
  const handedBack: string[] = [];
  for (const field of input.resourceType.fields) {
    if (!field.sensitive) continue;
    const value = input.desired[field.api];
    if (value === undefined) continue;
    const name = field.api;
    if (input.creating) {
      statuses.push({ field: name, status: 'changed' });
      changed.push(name);
      continue;
    }
    const recorded = input.recorded?.[name];
    const rotatedAt = field.rootCredential ? input.rotatedByService?.[name] : undefined;
    if (rotatedAt !== undefined) {
      // The service holds a root only it knows. The value in code is sent again only once it changed there
      // (the user hands the root back to the code on purpose); unknown or unchanged, it stays superseded.
      const since = recorded === undefined ? 'incomparable' : compareSecret(value, recorded, input.fingerprintKey);
      if (since === 'different') {
        statuses.push({ field: name, status: 'changed' });
        changed.push(name);
        handedBack.push(name);
      } else {
        statuses.push({ field: name, status: 'managed_by_service', rotatedAt });
      }
      continue;
    }
    const comparison = recorded === undefined ? 'different' : compareSecret(value, recorded, input.fingerprintKey);

    const verdict = input.resourceType.verifySecret(name, value, input.liveData);
    if (verdict !== undefined) {
      if (verdict === 'same') {
        statuses.push({ field: name, status: 'in_sync' });
      } else {
        // Same as applied but not what the server holds: changed outside secretform.
        statuses.push({ field: name, status: comparison === 'same' ? 'drifted' : 'changed' });
        changed.push(name);
      }
      continue;
    }

    if (comparison === 'same') {
      statuses.push({ field: name, status: 'unverifiable' });
    } else if (comparison === 'different') {
      statuses.push({ field: name, status: 'changed' });
      changed.push(name);
    } else if (field.rootCredential) {
      // Re-sending a root credential could undo a rotate-root done on the service: never send it on a guess.
      statuses.push({ field: name, status: 'unverifiable' });
      warnings.push(
        `${input.address}: the fingerprint of "${name}" in state was made with another ${STATE_KEY_ENV} (or without one), so ` +
          `secretform cannot tell whether it changed; as a root credential it is not sent. To send it, change its value, ` +
          `or remove the resource from state and import it again with the current key.`,
      );
    } else {
      statuses.push({ field: name, status: 'changed' });
      changed.push(name);
    }
  }
  return { statuses, changed, warnings, handedBack };
}

function hasAnyKey(record: Readonly<Record<string, string>>): boolean {
  for (const key in record) if (Object.prototype.hasOwnProperty.call(record, key)) return true;
  return false;
}
