import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { writeFileAtomically } from '../../lazy-packages';
import { hasKeysInOrder, inKeyOrder, isJsonObject, isNonEmptyString, isOptionalBoolean, isStringArray, isStringRecord } from '../../json-shape';
import { lazy, type Infer } from '../../lazy-zod';
import { utf8Text } from '../../utf8-text';
import { EngineError, fail, ok, type Result } from '../errors';

/**
 * What secretform remembers of one managed object: the last applied non-secret attributes (the third leg of the
 * three-way diff), fingerprints of the secrets it wrote (never the values), and the bridge digest. The schema of
 * `ResourceState` (below), which the build checks it agrees with.
 * @internal (zod's types stay out of the public declarations)
 */
export const resourceStateSchema = lazy((z) => z.object({
  type: z.string().min(1),
  id: z.string().min(1),
  attributes: z.record(z.string(), z.unknown()),
  secrets: z.record(z.string(), z.string()),
  digest: z.string().optional(),
  /**
   * Root credentials the service rotated (`rotate-root`), by field, with when: the value in code is superseded,
   * so plans do not report it and apply does not send it until it changes in code. Its fingerprint in `secrets`
   * is that of the superseded value.
   */
  rotated_by_service: z.record(z.string(), z.string()).optional(),
  dependencies: z.array(z.string()),
  applied_at: z.string(),
  /** The construct's `protect`, as last applied: a plan deleting the object fails, even once the construct is gone. */
  protect: z.boolean().optional(),
  /** The construct's `retainOnDelete`, as last applied: removing the construct forgets the object, never deletes it. */
  retain_on_delete: z.boolean().optional(),
}));

/** The schema of `StateFile`. @internal (zod's types stay out of the public declarations) */
export const stateFileSchema = lazy((z) => z.object({
  version: z.literal(1),
  lineage: z.string().min(1),
  serial: z.number().int().nonnegative(),
  stack: z.string(),
  resources: z.record(z.string(), resourceStateSchema()),
  /**
   * The service the stack was last applied to (its address, as `serviceIdentity` writes it): a run whose
   * connection names another service is refused (setup/service-identity.ts). Absent in a state written by an
   * older version (which, reading a newer file, drops it: the next apply records it again).
   */
  service: z.string().min(1).optional(),
  /**
   * The digest of the desired state the stack's last complete apply carried out (setup/desired-digest.ts), and the
   * serial of the state that apply left: any later write (a failed or targeted apply, destroy, import, a state
   * command) moves the serial on, so the digest no longer describes the state. Absent in a state written by an
   * older version (the stack then counts as changed for `--changed`).
   */
  applied_digest: z.object({ digest: z.string().min(1), serial: z.number().int().nonnegative() }).optional(),
}));

/**
 * One managed object as the state records it (`resourceStateSchema`). Written out, not inferred from the schema,
 * so that the public declarations do not name zod (a user's `esModuleInterop: false` fails in zod's own).
 */
export interface ResourceState {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  secrets: Record<string, string>;
  digest?: string;
  rotated_by_service?: Record<string, string>;
  dependencies: string[];
  applied_at: string;
  protect?: boolean;
  retain_on_delete?: boolean;
}

/** A stack's state (`stateFileSchema`). */
export interface StateFile {
  version: 1;
  lineage: string;
  serial: number;
  stack: string;
  resources: Record<string, ResourceState>;
  service?: string;
  applied_digest?: AppliedDigest;
}

/** What `StateFile.applied_digest` records: the digest of the desired state applied, and the serial it left. */
export interface AppliedDigest {
  digest: string;
  serial: number;
}

// The schemas and the types are one: the build fails when they disagree.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
/** @internal */
export type StateSchemaCheck = [Holds<Same<Infer<typeof resourceStateSchema>, ResourceState>>, Holds<Same<Infer<typeof stateFileSchema>, StateFile>>];

export function emptyState(stack: string): StateFile {
  return { version: 1, lineage: randomUUID(), serial: 0, stack, resources: {} };
}

/** Reads the state file; a missing file is an empty state, a damaged one an error that says where. */
export async function readState(path: string, stack: string): Promise<Result<StateFile>> {
  let text: string;
  try {
    // The bytes, then one decode (utf8-text.ts): `readFile(path, 'utf8')` decodes each chunk it reads and joins
    // them, which cost about twice the CPU for a state of 10,000 entries (6 MB), between a plan's first reads.
    text = utf8Text(await fs.readFile(path));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return ok(emptyState(stack));
    return fail(new EngineError('state_io', `cannot read state file ${path}: ${(err as Error).message}`));
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return fail(
      new EngineError(
        'state_corrupt',
        `state file ${path} is not valid JSON (${(err as Error).message}); \`secretform state history\` lists the kept versions and \`secretform state restore SERIAL\` brings one back`,
      ),
    );
  }
  const parsed = isWellFormedState(json) ? { success: true as const, data: json } : stateFileSchema().safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail(
      new EngineError(
        'state_corrupt',
        `state file ${path} is damaged at ${issue.path.join('.') || '(root)'}: ${issue.message}; ` +
          '`secretform state history` lists the kept versions and `secretform state restore SERIAL` brings one back',
      ),
    );
  }
  if (parsed.data.stack !== stack) {
    return fail(
      new EngineError(
        'state_stack_mismatch',
        `state file ${path} belongs to stack "${parsed.data.stack}", not "${stack}"; pass --state for this stack`,
      ),
    );
  }
  return ok(parsed.data);
}

/**
 * The keys of `stateFileSchema` and of `resourceStateSchema`, in their order, written out so that reading a
 * well-formed state does not build the schemas (a unit test checks they agree).
 */
export const STATE_KEYS: readonly string[] = ['version', 'lineage', 'serial', 'stack', 'resources', 'service', 'applied_digest'];
export const ENTRY_KEYS: readonly string[] = [
  'type', 'id', 'attributes', 'secrets', 'digest', 'rotated_by_service', 'dependencies', 'applied_at', 'protect', 'retain_on_delete',
];

/**
 * A state file the schema would take and return unchanged (no key it strips, keys in its order): the common
 * case, checked without zod, whose parse of 10,000 entries cost about 70 ms of a plan's start-up. Anything
 * else goes through the schema, which says where the file is damaged.
 */
export function isWellFormedState(value: unknown): value is StateFile {
  if (!isJsonObject(value) || !hasKeysInOrder(value, STATE_KEYS)) return false;
  const { version, lineage, serial, stack, resources, service, applied_digest: appliedDigest } = value;
  if (version !== 1 || !isNonEmptyString(lineage) || !Number.isSafeInteger(serial) || (serial as number) < 0 || typeof stack !== 'string') return false;
  if (service !== undefined && !isNonEmptyString(service)) return false;
  if (appliedDigest !== undefined && !isAppliedDigest(appliedDigest)) return false;
  if (!isJsonObject(resources)) return false;
  for (const address in resources) if (!isWellFormedEntry(resources[address])) return false;
  return true;
}

/** An `applied_digest` the schema takes as it is (its two keys in order). */
function isAppliedDigest(value: unknown): boolean {
  if (!isJsonObject(value) || !hasKeysInOrder(value, ['digest', 'serial']) || Object.keys(value).length !== 2) return false;
  return isNonEmptyString(value.digest) && Number.isSafeInteger(value.serial) && (value.serial as number) >= 0;
}

/**
 * A state entry as a PostgreSQL row holds it (jsonb keeps keys in its own order, not as written), back in the
 * schema's key order when it is well formed: what the schema would return, without zod. Undefined when it is not
 * (a key the schema strips, a part it refuses): the caller parses it with the schema, which says where.
 */
export function wellFormedEntryInAnyOrder(value: unknown): ResourceState | undefined {
  const ordered = isJsonObject(value) ? inKeyOrder(value, ENTRY_KEYS) : undefined;
  return ordered !== undefined && isWellFormedEntry(ordered) ? (ordered as unknown as ResourceState) : undefined;
}

function isWellFormedEntry(value: unknown): boolean {
  if (!isJsonObject(value) || !hasKeysInOrder(value, ENTRY_KEYS)) return false;
  return isNonEmptyString(value.type) && isNonEmptyString(value.id) && isJsonObject(value.attributes) && isStringRecord(value.secrets) &&
    (value.digest === undefined || typeof value.digest === 'string') &&
    (value.rotated_by_service === undefined || isStringRecord(value.rotated_by_service)) &&
    isStringArray(value.dependencies) && typeof value.applied_at === 'string' && isOptionalBoolean(value.protect) && isOptionalBoolean(value.retain_on_delete);
}

/**
 * Writes the state atomically (temp file + rename, so an interruption leaves the old or the new file, never a
 * torn one), readable by the owner only, with the serial bumped.
 */
export async function writeState(path: string, state: StateFile): Promise<Result<StateFile>> {
  const next: StateFile = { ...state, serial: state.serial + 1 };
  try {
    await writeFileAtomically(path, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    return ok(next);
  } catch (err) {
    return fail(new EngineError('state_io', `cannot write state file ${path}: ${(err as Error).message}`));
  }
}
