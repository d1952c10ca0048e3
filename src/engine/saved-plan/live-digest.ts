/**
 * The digest a saved plan records of each live object it read, to tell at apply time whether the object changed
 * since. It covers the canonical non-secret attributes only: secret fields are dropped first, so the digest is
 * never a fast hash of a secret (the service does not return secrets, and the model never puts one there, but a
 * digest must not depend on that).
 */
import { createHash } from 'node:crypto';
import type { Attributes, ResourceType } from '../../resources/types';
import { canonicalJson } from './canonical-json';

/** `sha256:<hex>` of the object's non-secret attributes; null when the object does not exist. */
export function liveDigest(resourceType: ResourceType, attributes: Attributes | null): string | null {
  if (attributes === null) return null;
  const secret = new Set(resourceType.fields.filter((field) => field.sensitive).map((field) => field.api));
  const visible: Attributes = {};
  for (const [name, value] of Object.entries(attributes)) if (!secret.has(name)) visible[name] = value;
  return `sha256:${createHash('sha256').update(canonicalJson(visible), 'utf8').digest('hex')}`;
}
