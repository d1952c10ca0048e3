/**
 * A saved plan is bound to what made it: when the run that writes it has a fingerprint key (SECRETFORM_STATE_KEY,
 * or the stack's key on the service), the file carries a keyed MAC over its canonical JSON (everything but the
 * MAC's value). Apply checks it before anything else, so a plan changed after `plan --out` wrote it (a secret
 * reference pointed at another variable or file, a target added, an action changed) is refused, naming what
 * failed. A file without a MAC is refused too whenever a key is available: removing the MAC must not be a way
 * around it. Without any key (a stack whose first apply has not run yet, no SECRETFORM_STATE_KEY) there is
 * nothing to bind with, and the plan carries no MAC.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { EngineError, fail, ok, type Result } from '../errors';
import { fingerprintKeyFromEnv, type FingerprintKey } from '../state/fingerprint';
import { canonicalJson } from './canonical-json';

export const SAVED_PLAN_MAC_ALGORITHM = 'hmac-sha256';
const MAC_PURPOSE = 'saved plan';

/** The MAC of a saved plan, as written in the file. */
export interface SavedPlanMac {
  readonly algorithm: typeof SAVED_PLAN_MAC_ALGORITHM;
  /** The public id of the key (as in HMAC fingerprints), to tell "another key" from "changed content". */
  readonly key_id: string;
  /** Where the key was (for messages; never the key). */
  readonly key_origin: string;
  /** base64url HMAC-SHA256 of the canonical JSON of the file without `mac`, under a key derived for plans. */
  readonly value: string;
}

/** The part of a saved plan the MAC covers: everything but the MAC. */
interface Macable {
  readonly mac?: SavedPlanMac;
}

/** The plan with its MAC when the run has a key; unchanged without one. */
export function withSavedPlanMac<T extends Macable>(saved: T, key: FingerprintKey): T {
  if (!key.hasKey || key.keyId === undefined) return saved;
  const described = { algorithm: SAVED_PLAN_MAC_ALGORITHM, key_id: key.keyId, key_origin: key.origin } as const;
  const value = key.mac(MAC_PURPOSE, contentOf({ ...saved, mac: undefined }, described))!;
  return { ...saved, mac: { ...described, value } };
}

/**
 * Whether the saved plan `file` is the one a run with `key` wrote. `key` without a key: a plan with a MAC is
 * refused when `required` (apply needs the key to trust it) and accepted unchecked otherwise (show).
 */
export function checkSavedPlanMac(saved: Macable, key: FingerprintKey, file: string, required: boolean): Result<void> {
  const refuse = (what: string) =>
    fail(new EngineError('plan_tampered', `the saved plan ${file} is refused, so nothing was read or changed: ${what}. Make a new plan (\`secretform plan --out PLANFILE\`), review it, and apply that one`));
  const mac = saved.mac;
  if (!key.hasKey) {
    if (mac !== undefined && required) return refuse(`it carries a MAC made with the key from ${mac.key_origin} (key id ${mac.key_id}), and this run has no fingerprint key to check it (${key.origin})`);
    return ok(undefined);
  }
  if (mac === undefined) {
    return refuse(`it carries no MAC, but a fingerprint key is available (${key.origin}): a plan written with that key carries one, so this file was made without it (before the stack's first apply created the key?) or its MAC was removed`);
  }
  if (mac.key_id !== key.keyId) {
    return refuse(`its MAC was made with another key (key id ${mac.key_id}, from ${mac.key_origin}); this run's key is ${key.keyId} from ${key.origin}`);
  }
  const expected = key.mac(MAC_PURPOSE, contentOf(saved, mac))!;
  if (mac.algorithm !== SAVED_PLAN_MAC_ALGORITHM || !sameText(mac.value, expected)) {
    return refuse('its content does not match its MAC: the file was changed after `secretform plan --out` wrote it');
  }
  return ok(undefined);
}

/**
 * The check `show` makes, reading the file only: with SECRETFORM_STATE_KEY set, the MAC must be there and match;
 * without it the stack's key is on the service, which show does not contact (apply always checks).
 */
export function checkSavedPlanWithoutService(saved: Macable, env: NodeJS.ProcessEnv, file: string): Result<void> {
  const key = fingerprintKeyFromEnv(env);
  return key ? checkSavedPlanMac(saved, key, file, false) : ok(undefined);
}

/** What the MAC covers: the whole file, the MAC's own algorithm, key id and origin included, but its value. */
function contentOf(saved: Macable, mac?: Omit<SavedPlanMac, 'value'>): string {
  const described = mac ? { algorithm: mac.algorithm, key_id: mac.key_id, key_origin: mac.key_origin } : undefined;
  return canonicalJson({ ...saved, mac: described });
}

/** Constant-time comparison of two texts of any length. */
function sameText(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}
