/**
 * A saved plan (`secretform plan --out PLANFILE`): the plan, and what is needed to check at apply time that it
 * is still true: the desired state it was made from (synthesized specs, secrets as references only), the state
 * it was based on (lineage and serial), and a digest of each live object it read. It never holds a secret value:
 * `apply PLANFILE` resolves the references again.
 */
import { promises as fs } from 'node:fs';
import { writeFileAtomically } from '../../lazy-packages';
import { EngineError, fail, ok, type Result } from '../errors';
import { lazy, type Infer } from '../../lazy-zod';
import type { Plan } from '../plan/plan';
import { SAVED_PLAN_MAC_ALGORITHM, type SavedPlanMac } from './plan-mac';
import { planSchema } from './plan-schema';

export const SAVED_PLAN_FORMAT = 'secretform-saved-plan';
/**
 * The version this secretform writes. 2: a consequence may be `uncounted` (version 1 readers knew only counts),
 * every stack's MAC covers the set it belongs to (plan-mac.ts), and a stack without one says why (`unverified`).
 * An older secretform reads the version first and says the file is of a newer version, rather than failing on
 * a field it does not know.
 */
export const SAVED_PLAN_VERSION = 2;
/** The versions this secretform reads: version 1 files (made before) keep working. */
export const SAVED_PLAN_VERSIONS_READ = [1, 2] as const;
export type SavedPlanVersion = (typeof SAVED_PLAN_VERSIONS_READ)[number];

export interface SavedPlan {
  format: typeof SAVED_PLAN_FORMAT;
  format_version: SavedPlanVersion;
  /** ISO time the plan was made. */
  created_at: string;
  stack: string;
  refresh_only: boolean;
  /** The --target addresses of the plan (empty: the whole stack). */
  targets: string[];
  /** The state the plan was based on. `location` is printable (a URL's password masked). */
  state: { location: string; lineage: string; serial: number };
  /** The desired resources as synthesized (secrets are `{"$secret": {...}}` references). */
  desired: Record<string, unknown>[];
  /** The stack's ServiceConnection as synthesized (names and paths, no token), when it has one: the apply goes to the same service. */
  connection?: Record<string, unknown>;
  /** By address, the digest of every live object the plan read (`liveDigest`), null when it did not exist. */
  live_objects: Record<string, string | null>;
  /**
   * The policy packs the plan was made with (`recommended`, or module paths relative to the project directory):
   * `apply PLANFILE` evaluates them again, with any given then. Absent in plans made without packs.
   */
  policy_packs?: string[];
  /**
   * The stacks of the app this stack depends on (the synth output's manifest), whether the plan covers them or
   * not: plan files made by separate runs (`apply`/`show PLANFILE...`) are ordered by it. Absent in plans made
   * from specs rather than a synth output.
   */
  depends_on?: string[];
  plan: Plan;
  /** The keyed MAC over the rest of the file and the set it belongs to, when the run that wrote it had a fingerprint key (plan-mac.ts). */
  mac?: SavedPlanMac;
  /**
   * Why the stack carries no MAC (no fingerprint key could be read or created for it when the plan was made):
   * `apply` refuses such a stack unless told to apply unverified plans (`--allow-unverified-plan`).
   */
  unverified?: string;
}

const savedPlanSchema = lazy((z) => z.object({
  format: z.literal(SAVED_PLAN_FORMAT),
  format_version: z.union([z.literal(SAVED_PLAN_VERSIONS_READ[0]), z.literal(SAVED_PLAN_VERSIONS_READ[1])]),
  created_at: z.string(),
  stack: z.string().min(1),
  refresh_only: z.boolean(),
  targets: z.array(z.string()),
  state: z.object({ location: z.string(), lineage: z.string().min(1), serial: z.number().int().nonnegative() }),
  desired: z.array(z.record(z.string(), z.unknown())),
  connection: z.record(z.string(), z.unknown()).optional(),
  live_objects: z.record(z.string(), z.string().nullable()),
  policy_packs: z.array(z.string()).optional(),
  depends_on: z.array(z.string().min(1)).optional(),
  plan: planSchema(),
  mac: z
    .object({ algorithm: z.literal(SAVED_PLAN_MAC_ALGORITHM), key_id: z.string(), key_origin: z.string(), value: z.string() })
    .readonly()
    .optional(),
  unverified: z.string().optional(),
}));

// The file's schema and the `SavedPlan` type are one (see plan-schema.ts): the build fails when they disagree.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
/** @internal */
export type SavedPlanSchemaCheck = Holds<Same<Infer<typeof savedPlanSchema>, SavedPlan>>;

/** Writes the saved plan atomically, readable by its owner only. */
export async function writeSavedPlan(file: string, saved: SavedPlan): Promise<Result<void>> {
  try {
    await writeFileAtomically(file, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
    return ok(undefined);
  } catch (error) {
    return fail(new EngineError('plan_file', `cannot write the saved plan ${file}: ${(error as Error).message}`));
  }
}

/** Reads and checks a saved plan; the error says what is wrong with the file and how to get a good one. */
export async function readSavedPlan(file: string): Promise<Result<SavedPlan>> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'the file does not exist' : (error as Error).message;
    return fail(new EngineError('plan_file', `cannot read the saved plan ${file}: ${reason}; make one with \`secretform plan --out ${file}\``));
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return fail(new EngineError('plan_file', `${file} is not a saved plan (not JSON: ${(error as Error).message}); make one with \`secretform plan --out ${file}\``));
  }
  return parseSavedPlan(json, file);
}

/** Checks one stack's saved plan already parsed from JSON (`file` names where it came from in errors). */
export function parseSavedPlan(json: unknown, file: string): Result<SavedPlan> {
  const format = (json as { format?: unknown } | null)?.format;
  const version = (json as { format_version?: unknown } | null)?.format_version;
  if (format === SAVED_PLAN_FORMAT && !(SAVED_PLAN_VERSIONS_READ as readonly unknown[]).includes(version)) {
    return fail(newerOrUnknownVersion(file, version));
  }
  const parsed = savedPlanSchema().safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail(new EngineError('plan_file', `${file} is not a secretform saved plan (at ${issue.path.join('.') || '(root)'}: ${issue.message}); make one with \`secretform plan --out ${file}\``));
  }
  return ok(parsed.data);
}

/**
 * The error of a saved plan (or set) of a version this secretform does not read: newer (the usual case), or not
 * one at all. `newest` is the version this secretform writes, `read` the versions it reads.
 */
export function newerOrUnknownVersion(file: string, version: unknown, newest: number = SAVED_PLAN_VERSION, read: readonly number[] = SAVED_PLAN_VERSIONS_READ): EngineError {
  const reads = `this secretform reads ${read.length > 1 ? `versions ${read.join(' and ')}` : `version ${read[0]}`}`;
  if (typeof version === 'number' && version > newest) {
    return new EngineError('plan_file', `${file} was made by a newer version of secretform (saved plan format version ${version}; ${reads}): apply it with the version that made it, or plan again with this one (\`secretform plan --out ${file}\`)`);
  }
  return new EngineError('plan_file', `${file} is a saved plan of format version ${JSON.stringify(version) ?? 'none'}, which no secretform writes (${reads}): plan again (\`secretform plan --out ${file}\`)`);
}
