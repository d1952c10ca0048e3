/**
 * A stack's drift history: the document the state backend keeps for it (state/drift-history-store.ts), one per
 * stack. It holds the recent checks (for the dashboard's chart), the drift episodes (open, and the most recent
 * resolved ones), how many episodes each object has had, and the acknowledgements.
 *
 * It holds no secret value and no field value at all: a drifted field's live value is kept only as a digest
 * (field-digest.ts), enough to tell whether the object drifted further at the next check.
 *
 * Bounded whatever the number of checks: the last MAX_CHECKS checks are kept (older ones live on only in the
 * `checks` count and `first_seen` of their episodes), the last MAX_RESOLVED_EPISODES resolved episodes, and
 * episode counts of at most MAX_COUNTED_OBJECTS objects (those drifted most recently).
 */
import { isJsonObject, isStringRecord } from '../../json-shape';
import { lazy } from '../../lazy-zod';
import { EngineError, fail, ok, type Result } from '../errors';

export const HISTORY_FORMAT = 'secretform-drift-history';
export const HISTORY_VERSION = 1;
export const MAX_CHECKS = 500;
export const MAX_RESOLVED_EPISODES = 1000;
export const MAX_COUNTED_OBJECTS = 20_000;

/** One recorded check: when, and how many objects were drifted (for the chart of drift over time). */
export interface CheckRecord {
  at: string;
  drifted: number;
  /** Of those, not acknowledged. */
  unacknowledged: number;
}

/** Field name to the digest of its live value (field-digest.ts). */
export type FieldDigests = Record<string, string>;

/** One stretch of time during which an object was drifted, from the check that first saw it until one saw it in sync. */
export interface Episode {
  address: string;
  type: string;
  /** `changed`, `deleted`, or a type's health kind. */
  kind: string;
  /** The drift as last seen. */
  fields: FieldDigests;
  first_seen: string;
  last_seen: string;
  /** Set once a check found the object in sync again. */
  resolved_at?: string;
  /** Recorded checks that saw this episode. */
  checks: number;
}

export interface Acknowledgement {
  /** Who: SECRETFORM_ACTOR, the CI's actor, else the OS user (actor.ts). */
  by: string;
  at: string;
  reason: string;
  /** When it lapses (ISO time); absent: until the drift changes. */
  until?: string;
  /** The drift it covers, as seen when it was made. */
  kind: string;
  fields: FieldDigests;
}

export interface DriftHistory {
  format: typeof HISTORY_FORMAT;
  format_version: typeof HISTORY_VERSION;
  stack: string;
  checks: CheckRecord[];
  episodes: Episode[];
  /** Episodes each object has had, resolved episodes dropped by the bound included. */
  episode_counts: Record<string, number>;
  acknowledgements: Record<string, Acknowledgement>;
}

export function emptyHistory(stack: string): DriftHistory {
  return { format: HISTORY_FORMAT, format_version: HISTORY_VERSION, stack, checks: [], episodes: [], episode_counts: {}, acknowledgements: {} };
}

const digests = lazy((z) => z.record(z.string(), z.string()));
/** The schema of a history (parseHistory tries isWellFormedHistory first). @internal (zod's types stay out of the public declarations) */
export const historySchema = lazy((z) => z.object({
  format: z.literal(HISTORY_FORMAT),
  format_version: z.literal(HISTORY_VERSION),
  stack: z.string(),
  checks: z.array(z.object({ at: z.string(), drifted: z.number().int().nonnegative(), unacknowledged: z.number().int().nonnegative() })),
  episodes: z.array(z.object({
    address: z.string(),
    type: z.string(),
    kind: z.string(),
    fields: digests(),
    first_seen: z.string(),
    last_seen: z.string(),
    resolved_at: z.string().optional(),
    checks: z.number().int().positive(),
  })),
  episode_counts: z.record(z.string(), z.number().int().positive()),
  acknowledgements: z.record(z.string(), z.object({
    by: z.string(),
    at: z.string(),
    reason: z.string(),
    until: z.string().optional(),
    kind: z.string(),
    fields: digests(),
  })),
}));

/**
 * The history stored at `where` (`undefined`: none yet). A history written by a newer secretform is refused
 * (`drift_history_newer`): this version would drop what it does not know when it records the next check. One
 * that does not parse is damaged (`drift_history_corrupt`), named, and never overwritten.
 */
export function parseHistory(stored: unknown, stack: string, where: string): Result<DriftHistory> {
  if (stored === undefined) return ok(emptyHistory(stack));
  const version = typeof stored === 'object' && stored !== null ? (stored as { format_version?: unknown }).format_version : undefined;
  if (typeof version === 'number' && version > HISTORY_VERSION) {
    return fail(new EngineError('drift_history_newer', `the drift history ${where} was written by a newer secretform (history format ${version}; this one reads ${HISTORY_VERSION}): upgrade secretform to check this stack's drift`));
  }
  // zod only for a history that is not well formed (to say where): checking a 10,000-object stack's history with
  // it took longer than everything else its recording does, and a check's time must not grow with the history.
  const parsed = isWellFormedHistory(stored) ? { success: true as const, data: stored } : historySchema().safeParse(stored);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    return fail(new EngineError('drift_history_corrupt', `the drift history ${where} is damaged (${issue.message}${at}): nothing was recorded in it. Restore it from a backup, or remove it to start a new history; the state is not affected`));
  }
  if (parsed.data.stack !== stack) {
    return fail(new EngineError('drift_history_corrupt', `the drift history ${where} is of stack "${parsed.data.stack}", not "${stack}": nothing was recorded in it. Check --state`));
  }
  return ok(parsed.data);
}

const HISTORY_KEYS: ReadonlySet<string> = new Set(['format', 'format_version', 'stack', 'checks', 'episodes', 'episode_counts', 'acknowledgements']);
const CHECK_KEYS: ReadonlySet<string> = new Set(['at', 'drifted', 'unacknowledged']);
const EPISODE_KEYS: ReadonlySet<string> = new Set(['address', 'type', 'kind', 'fields', 'first_seen', 'last_seen', 'resolved_at', 'checks']);
const ACKNOWLEDGEMENT_KEYS: ReadonlySet<string> = new Set(['by', 'at', 'reason', 'until', 'kind', 'fields']);

/**
 * Whether `value` is a history the schema takes as it is (nothing stripped, nothing refused), checked without
 * zod: the fast path of parseHistory. Keys may come in any order (a PostgreSQL jsonb row holds them in its own);
 * the document means the same whatever their order. Anything else goes through the schema, which says where it
 * is damaged (test/unit/drift-history-fast-path.test.ts holds the two to the same answers).
 */
export function isWellFormedHistory(value: unknown): value is DriftHistory {
  if (!isJsonObject(value) || !onlyKeys(value, HISTORY_KEYS)) return false;
  if (value.format !== HISTORY_FORMAT || value.format_version !== HISTORY_VERSION || typeof value.stack !== 'string') return false;
  const { checks, episodes, episode_counts: counts, acknowledgements } = value;
  if (!Array.isArray(checks) || !Array.isArray(episodes) || !isJsonObject(counts) || !isJsonObject(acknowledgements)) return false;
  for (let index = 0; index < checks.length; index++) {
    const check: unknown = checks[index];
    if (!isJsonObject(check) || !onlyKeys(check, CHECK_KEYS) || typeof check.at !== 'string' || !isCount(check.drifted) || !isCount(check.unacknowledged)) return false;
  }
  for (let index = 0; index < episodes.length; index++) {
    const episode: unknown = episodes[index];
    if (!isJsonObject(episode) || !onlyKeys(episode, EPISODE_KEYS)) return false;
    if (typeof episode.address !== 'string' || typeof episode.type !== 'string' || typeof episode.kind !== 'string' || !isStringRecord(episode.fields)) return false;
    if (typeof episode.first_seen !== 'string' || typeof episode.last_seen !== 'string' || !isCount(episode.checks) || episode.checks === 0) return false;
    if (episode.resolved_at !== undefined && typeof episode.resolved_at !== 'string') return false;
  }
  for (const address in counts) if (!isCount(counts[address]) || counts[address] === 0) return false;
  for (const address in acknowledgements) {
    const ack = acknowledgements[address];
    if (!isJsonObject(ack) || !onlyKeys(ack, ACKNOWLEDGEMENT_KEYS)) return false;
    if (typeof ack.by !== 'string' || typeof ack.at !== 'string' || typeof ack.reason !== 'string' || typeof ack.kind !== 'string' || !isStringRecord(ack.fields)) return false;
    if (ack.until !== undefined && typeof ack.until !== 'string') return false;
  }
  return true;
}

function onlyKeys(value: Record<string, unknown>, keys: ReadonlySet<string>): boolean {
  for (const key in value) if (!keys.has(key)) return false;
  return true;
}

/** `z.number().int().nonnegative()`. */
function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** The history within its bounds (see the top of this file); a new value. */
export function bounded(history: DriftHistory): DriftHistory {
  const checks = history.checks.slice(-MAX_CHECKS);
  const open = history.episodes.filter((episode) => episode.resolved_at === undefined);
  const resolved = history.episodes.filter((episode) => episode.resolved_at !== undefined)
    .sort((a, b) => compareText(a.resolved_at!, b.resolved_at!))
    .slice(-MAX_RESOLVED_EPISODES);
  const episodes = [...resolved, ...open];
  let counts = history.episode_counts;
  const addresses = Object.keys(counts);
  if (addresses.length > MAX_COUNTED_OBJECTS) {
    // Keep the objects drifted most recently (last seen in any episode kept); the others' counts start over.
    const lastSeen = new Map<string, string>();
    for (const episode of episodes) if ((lastSeen.get(episode.address) ?? '') < episode.last_seen) lastSeen.set(episode.address, episode.last_seen);
    const kept = addresses.sort((a, b) => compareText(lastSeen.get(b) ?? '', lastSeen.get(a) ?? '')).slice(0, MAX_COUNTED_OBJECTS);
    counts = Object.fromEntries(kept.map((address) => [address, history.episode_counts[address]]));
  }
  return { ...history, checks, episodes, episode_counts: counts };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
