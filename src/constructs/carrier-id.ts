/**
 * The logical id cdktf gives an element (a resource's key in `cdk.tf.json`, the name in its terraform address),
 * made by secretform for a construct's carrier that is not a construct (virtual-carrier.ts): the same text as
 * cdktf's `TerraformStack.allocateLogicalId`, its "hashed addressing scheme" (`makeUniqueId` in cdktf's
 * lib/private/unique.js), from the element's path components below its stack.
 *
 * One-shot `crypto.hash` for the MD5 of the path (node >= 20.12): no hash object per carrier, where cdktf makes
 * one with `createHash` (a tenth of the logical ids' cost at 10,000 carriers).
 */
import * as crypto from 'node:crypto';

/** Components with this id are left out of the id and of its hash. */
const HIDDEN_ID = 'Default';
/** Components with this id are left out of the human part of the id (still hashed). */
const HIDDEN_FROM_HUMAN_ID = 'Resource';
const PATH_SEP = '/';
const UNIQUE_SEP = '_';
const HASH_LEN = 8;
const MAX_HUMAN_LEN = 240;
const MAX_ID_LEN = 255;

/** The logical id of an element whose path below its stack is `components` (cdktf's `makeUniqueId`). */
export function logicalIdOf(components: readonly string[]): string {
  const kept = components.filter((component) => component !== HIDDEN_ID);
  if (kept.length === 0) throw new Error('cannot make a logical id of an empty path: every component is "Default"');
  if (kept.length === 1) {
    const candidate = withoutDisallowed(kept[0]);
    if (candidate.length <= MAX_ID_LEN) return candidate;
  }
  const human = withoutDupes(kept)
    .filter((component) => component !== HIDDEN_FROM_HUMAN_ID)
    .map(withoutDisallowed)
    .join(UNIQUE_SEP)
    .slice(0, MAX_HUMAN_LEN);
  return human + UNIQUE_SEP + pathHash(kept);
}

function pathHash(components: readonly string[]): string {
  return crypto.hash('md5', components.join(PATH_SEP), 'hex').slice(0, HASH_LEN).toUpperCase();
}

function withoutDisallowed(component: string): string {
  return component.replace(/[^A-Za-z0-9_-]/g, '');
}

/** Each component unless the one kept before it ends with it (cdktf's `removeDupes`). */
function withoutDupes(components: readonly string[]): string[] {
  const kept: string[] = [];
  for (const component of components) {
    if (kept.length === 0 || !kept[kept.length - 1].endsWith(component)) kept.push(component);
  }
  return kept;
}
