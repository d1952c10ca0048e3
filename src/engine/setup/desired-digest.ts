/**
 * The digest of a stack's desired state as applied: what `secretform stacks --changed` and `--changed` on plan
 * and apply compare with the digest the stack's last complete apply recorded in its state. Equal digests mean
 * the code asks for nothing the last apply did not already carry out, so planning the stack again has nothing
 * new to find from the code (drift on the service is another matter: only a plan reads the service).
 *
 * What goes in, and only that: each resource's synthesized spec as the engine reads it (type, address, id,
 * fields, secrets as their references `{"$secret": {"env": NAME}}` and never a value, dependencies, lifecycle
 * options, policy waivers), the stack's ServiceConnection settings (address, the token's variable name and TLS
 * file paths; never a token) and the service address the run talks to. Left out: where the code creates a
 * construct (moving a line is no change) and the per-resource bridge digest (derived from the rest).
 * SHA-256 over a canonical JSON text (keys sorted at every level, resources by address), so the digest does not
 * depend on key order or construct order.
 */
import { createHash } from 'node:crypto';
import { lifecycleJson, type ResourceLifecycle, type SynthesizedConnection } from '../../synthesized-spec';
import { secretReferenceJson, type SecretReference } from '../../secret-value';
import type { DesiredStack } from './desired';

/** One resource as the digest takes it: its synthesized spec without the creation site and bridge digest. */
export interface DigestResource {
  readonly address: string;
  readonly type: string;
  readonly id: string;
  readonly spec: Readonly<Record<string, unknown>>;
  /** Each secret field's reference (undefined for a value given in memory, which has none: see below). */
  readonly secrets: Readonly<Record<string, SecretReference | undefined>>;
  readonly dependsOn: readonly string[];
  readonly lifecycle?: ResourceLifecycle;
  readonly policyWaivers?: Readonly<Record<string, string>>;
}

/** What the digest covers: the stack's resources, its connection, and the service address its runs use. */
export interface DigestInput {
  readonly resources: readonly DigestResource[];
  readonly connection?: SynthesizedConnection;
  /** The service the stack's runs talk to (`serviceIdentity`), undefined when no address is set. */
  readonly service?: string;
}

/** The digest of a stack's desired state: `sha256:` and 64 hex digits. */
export function desiredDigest(input: DigestInput): string {
  return `sha256:${createHash('sha256').update(digestText(input)).digest('hex')}`;
}

/** The digest of a loaded desired state (what apply records), with the service its run talks to. */
export function digestOfDesired(desired: DesiredStack, service: string | undefined): string {
  return desiredDigest(digestInputOf(desired, service));
}

/** What the digest of a loaded desired state is taken over: its secrets by reference. */
export function digestInputOf(desired: DesiredStack, service: string | undefined): DigestInput {
  const resources = desired.resources.map((resource): DigestResource => ({
    address: resource.address,
    type: resource.type,
    id: resource.id,
    spec: resource.spec,
    secrets: Object.fromEntries(Object.entries(resource.secrets).map(([field, secret]) => [field, secret.reference])),
    dependsOn: resource.dependsOn,
    lifecycle: resource.lifecycle,
    policyWaivers: resource.policyWaivers,
  }));
  return { resources, connection: desired.connection, service };
}

/**
 * The canonical text the digest is taken over (exported for the tests that check it holds references only).
 * A secret given in memory as a plain value (`SecretValue.unsafePlainText`, never synthesized) stands as
 * `{"$secret": "in-memory"}`: its value never enters the digest.
 *
 * It is `canonicalText({ version: 1, service, connection, resources })`, written as two parts: with its keys
 * sorted, the service comes after everything synth knows, so synth can hash the first part once
 * (desired-digest-record.ts) and change detection add the service a run talks to. A unit test holds the two
 * parts to the one-object form, and pins digests recorded by earlier versions.
 */
export function digestText(input: DigestInput): string {
  return digestTextBeforeService(input) + digestTextFromService(input.service);
}

/** The canonical text up to the service's value: `{"connection":...,"resources":[...],"service":`. */
export function digestTextBeforeService(input: Omit<DigestInput, 'service'>): string {
  let text = '';
  writeDigestTextBeforeService(input, (part) => {
    text += part;
  });
  return text;
}

/**
 * The same text handed to `write` a resource at a time, in order: synth hashes it as it goes
 * (desired-digest-record.ts) rather than building one string of the whole stack first (tens of megabytes at
 * 10,000 objects, each byte copied again when the string is flattened for hashing).
 */
export function writeDigestTextBeforeService(input: Omit<DigestInput, 'service'>, write: (part: string) => void): void {
  const resources = [...input.resources].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const { construct: _construct, ...connection } = input.connection ?? { construct: '' };
  write(`{"connection":${canonicalText(input.connection === undefined ? null : connection)},"resources":[`);
  for (let i = 0; i < resources.length; i++) write((i === 0 ? '' : ',') + resourceText(resources[i]));
  write('],"service":');
}

/**
 * One resource's canonical text: `canonicalText` of `{ address, type, id, spec, secrets, dependsOn, lifecycle?,
 * policyWaivers? }` (secrets as their references, dependencies sorted), written member by member in sorted key
 * order instead of through an object made for it (a unit test holds it to that form).
 */
function resourceText(resource: DigestResource): string {
  let secrets = '{';
  const fields = Object.keys(resource.secrets);
  if (!isSorted(fields)) fields.sort();
  for (let i = 0; i < fields.length; i++) {
    const reference = resource.secrets[fields[i]];
    secrets += `${i === 0 ? '' : ','}${JSON.stringify(fields[i])}:${canonicalText(reference === undefined ? { $secret: 'in-memory' } : secretReferenceJson(reference))}`;
  }
  secrets += '}';
  const dependsOn = isSorted(resource.dependsOn) ? resource.dependsOn : [...resource.dependsOn].sort();
  const { lifecycle } = lifecycleJson(resource.lifecycle);
  const waivers = resource.policyWaivers !== undefined && Object.keys(resource.policyWaivers).length > 0 ? resource.policyWaivers : undefined;
  return `{"address":${JSON.stringify(resource.address)},"dependsOn":${canonicalText(dependsOn)},"id":${JSON.stringify(resource.id)}` +
    (lifecycle === undefined ? '' : `,"lifecycle":${canonicalText(lifecycle)}`) +
    (waivers === undefined ? '' : `,"policyWaivers":${canonicalText(waivers)}`) +
    `,"secrets":${secrets},"spec":${canonicalText(resource.spec)},"type":${JSON.stringify(resource.type)}}`;
}

/** The rest of the canonical text: the service's value (null when no address is set) and the format's version. */
export function digestTextFromService(service: string | undefined): string {
  return `${canonicalText(service ?? null)},"version":${DIGEST_TEXT_VERSION}}`;
}

/** The `version` member of the canonical text: a new one would make every recorded digest differ. */
const DIGEST_TEXT_VERSION = 1;

/**
 * JSON with object keys sorted at every level and undefined members left out. (saved-plan/canonical-json.ts
 * does the same, but setup comes before saved-plan in the stage order and may not import it.)
 *
 * Written as one string built in place, keys sorted only when they are not already (a synthesized spec's keys
 * are): `secretform stacks` digests every stack's whole desired state, and the arrays of members and the copy
 * that `sort` needs were a quarter of its CPU time at 100 stacks (a unit test holds it to the plain form).
 * @internal exported for that test
 */
export function canonicalText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i === 0 ? '' : ',') + canonicalText(value[i]);
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (!isSorted(keys)) keys.sort();
  let text = '{';
  let first = true;
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalText(member)}`;
    first = false;
  }
  return `${text}}`;
}

/** Whether `keys` are in the order `sort()` gives (UTF-16 code units; keys of one object are never equal). */
function isSorted(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1] > keys[i]) return false;
  return true;
}
