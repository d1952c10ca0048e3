/**
 * A saved plan is bound to what made it: when the run that writes it has a fingerprint key (SECRETFORM_STATE_KEY,
 * or the stack's key on the service or in the state backend, which `plan --out` creates when the stack has none
 * yet), each stack's plan carries a keyed MAC over its canonical JSON (everything but the MAC's value) and, from
 * format version 2 on, over the set it belongs to: the stacks in their order and their dependencies, so that no
 * stack can be dropped, added or reordered and no dependency changed. Apply checks it before anything else, so a
 * plan changed after `plan --out` wrote it (a secret reference pointed at another variable or file, a target
 * added, an action changed, a description edited) is refused, naming what failed. A stack without a MAC is
 * refused too whenever a key is available: removing the MAC must not be a way around it. A stack for which no
 * key could be had says why (`unverified`), and apply refuses it unless told to apply unverified plans.
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

/** The part of a saved plan the MAC covers: everything but the MAC's value. */
interface Macable {
  readonly format_version: number;
  readonly mac?: SavedPlanMac;
  readonly unverified?: string;
}

/** The set a stack's plan belongs to, as apply runs it: its stacks in order, and by stack the stacks it waits for. */
export interface SavedPlanSetContext {
  readonly stacks: readonly string[];
  readonly dependencies: Readonly<Record<string, readonly string[]>>;
}

/** The flag that applies a stack whose plan carries no MAC (no key could be had for it). */
export const ALLOW_UNVERIFIED_FLAG = '--allow-unverified-plan';

/**
 * The plan with its MAC over it and `set` when the run has a key; without one, the plan says why it carries none
 * (`unverified`: the key's absence, as the key source reported it).
 */
export function withSavedPlanMac<T extends Macable>(saved: T, key: FingerprintKey, set?: SavedPlanSetContext): T {
  const { unverified: _unverified, ...content } = saved;
  if (!key.hasKey || key.keyId === undefined) return { ...content, mac: undefined, unverified: `no fingerprint key: ${key.origin}` } as T;
  const described = { algorithm: SAVED_PLAN_MAC_ALGORITHM, key_id: key.keyId, key_origin: key.origin } as const;
  const value = key.mac(MAC_PURPOSE, contentOf({ ...content, mac: undefined }, described, set))!;
  return { ...content, mac: { ...described, value } } as T;
}

/**
 * Whether the saved plan `file` is the one a run with `key` wrote, as part of `set` (required from format
 * version 2 on). `key` without a key: a plan with a MAC is refused when `required` (apply needs the key to trust
 * it) and accepted unchecked otherwise (show); a plan without a MAC is refused when `required` unless
 * `allowUnverified` (the user's explicit choice, ALLOW_UNVERIFIED_FLAG).
 */
export function checkSavedPlanMac(saved: Macable, key: FingerprintKey, file: string, required: boolean, set?: SavedPlanSetContext, allowUnverified = false): Result<void> {
  // `wayOut`: how to get past this refusal, when making a new plan is not all there is to say.
  const refuse = (what: string, wayOut = 'Make a new plan (`secretform plan --out PLANFILE`), review it, and apply that one') =>
    fail(new EngineError('plan_tampered', `the saved plan ${file} is refused, so nothing was read or changed: ${what}. ${wayOut}`));
  const mac = saved.mac;
  if (!key.hasKey) {
    if (mac !== undefined && required) {
      return refuse(
        `it carries a MAC made with the key from ${mac.key_origin} (key id ${mac.key_id}), and this run has no fingerprint key to check it (${key.origin})`,
        `Give this run the key the plan was made with (SECRETFORM_STATE_KEY, or a token that can read the stack's key), or make a new plan (\`secretform plan --out PLANFILE\`), review it, and apply that one`,
      );
    }
    if (mac === undefined && required && !allowUnverified) {
      const why = saved.unverified !== undefined ? `the file says: ${saved.unverified}` : 'the file gives no reason';
      return refuse(
        `it carries no MAC (${why}) and this run has no fingerprint key either (${key.origin}), so nothing tells that it is the file \`secretform plan --out\` wrote`,
        `Make the plan again where a key can be read or created (SECRETFORM_STATE_KEY, or a token that can write the stack's key), or, having checked the file yourself, apply it with ${ALLOW_UNVERIFIED_FLAG}`,
      );
    }
    return ok(undefined);
  }
  if (mac === undefined) {
    return refuse(`it carries no MAC, but a fingerprint key is available (${key.origin}): a plan written with that key carries one, so this file was made without it (before the stack's first apply created the key?) or its MAC was removed`);
  }
  if (mac.key_id !== key.keyId) {
    return refuse(`its MAC was made with another key (key id ${mac.key_id}, from ${mac.key_origin}); this run's key is ${key.keyId} from ${key.origin}`);
  }
  const expected = key.mac(MAC_PURPOSE, contentOf(saved, mac, set))!;
  if (mac.algorithm !== SAVED_PLAN_MAC_ALGORITHM || !sameText(mac.value, expected)) {
    return refuse('its content does not match its MAC: the file was changed after `secretform plan --out` wrote it');
  }
  return ok(undefined);
}

/**
 * The check `show` makes, reading the file only: with SECRETFORM_STATE_KEY set, the MAC must be there and match;
 * without it the stack's key is on the service, which show does not contact (apply always checks).
 */
export function checkSavedPlanWithoutService(saved: Macable, env: NodeJS.ProcessEnv, file: string, set?: SavedPlanSetContext): Result<void> {
  const key = fingerprintKeyFromEnv(env);
  return key ? checkSavedPlanMac(saved, key, file, false, set) : ok(undefined);
}

/**
 * What the MAC covers: the whole stack's plan, the MAC's own algorithm, key id and origin included, but its
 * value; from format version 2 on, the set too (version 1 files, made before, are checked as they were made).
 */
function contentOf(saved: Macable, mac?: Omit<SavedPlanMac, 'value'>, set?: SavedPlanSetContext): string {
  const described = mac ? { algorithm: mac.algorithm, key_id: mac.key_id, key_origin: mac.key_origin } : undefined;
  const plan = { ...saved, mac: described };
  if (saved.format_version === 1) return canonicalJson(plan);
  if (set === undefined) throw new Error('internal error: the MAC of a saved plan of format version 2 covers its set, and none was given');
  return canonicalJson({ plan, set: { stacks: set.stacks, dependencies: set.dependencies } });
}

/** Constant-time comparison of two texts of any length. */
function sameText(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}
