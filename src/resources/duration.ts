/**
 * The service's duration format: integer seconds (a number or a string of digits) or number-unit pairs
 * (`1h`, `90s`, `1h30m`, `1.5h`, `48d`). Canonical form: whole seconds (the service stores seconds).
 *
 * The service adds the pairs up in whole nanoseconds (each pair's fraction cut to the nanosecond) and stores
 * the total truncated to seconds; it holds durations as signed 64-bit nanoseconds. The sum is computed the
 * same way here, exactly (BigInt), so `4.35m` is 261 seconds and never 260.99999 truncated to 260.
 */
const NANOSECONDS_PER_SECOND = 1_000_000_000n;
const UNIT_NANOSECONDS: Record<string, bigint> = {
  ns: 1n, us: 1_000n, 'µs': 1_000n, 'μs': 1_000n, ms: 1_000_000n, s: NANOSECONDS_PER_SECOND,
  m: 60n * NANOSECONDS_PER_SECOND, h: 3_600n * NANOSECONDS_PER_SECOND, d: 86_400n * NANOSECONDS_PER_SECOND,
};

/** The largest whole-second duration the service can hold: (2^63 - 1) nanoseconds, about 292 years. */
export const MAX_DURATION_SECONDS = 9_223_372_036;

export const DURATION_ALLOWED =
  `a duration: integer seconds or a string such as "90s", "15m", "1h30m", "48d", at most ${MAX_DURATION_SECONDS} seconds (about 292 years)`;

/** Whole seconds of a duration, or `undefined` when the value is not a duration the service can hold. */
export function parseDuration(value: unknown): number | undefined {
  const seconds = durationSeconds(value);
  return seconds === undefined || seconds > MAX_DURATION_SECONDS ? undefined : seconds;
}

export function isDuration(value: unknown): boolean {
  return parseDuration(value) !== undefined;
}

/** What is wrong with a duration value, or undefined when it is one. */
export function durationProblem(value: unknown): string | undefined {
  const seconds = durationSeconds(value);
  if (seconds === undefined) return `expected ${DURATION_ALLOWED}`;
  if (seconds > MAX_DURATION_SECONDS) return `at most ${MAX_DURATION_SECONDS} seconds (about 292 years), the longest duration the service can hold`;
  return undefined;
}

/**
 * Every field of every resource of a plan is normalised through here, and an app writes a handful of distinct
 * duration texts ("1h", "768h"), so a text's seconds are kept once computed: the BigInt sum is paid once per
 * text, not once per field. Bounded: a run with more distinct texts starts the cache over.
 */
const CACHE_LIMIT = 1024;
const MAX_TEXT = 256;
const secondsOfText = new Map<string, number | undefined>();
const DIGITS = /^\d+$/;
/** Sticky and global, so `exec` walks the text pair by pair; its `lastIndex` is reset before each text. */
const PAIR = /(\d+)(?:\.(\d+))?(ns|us|µs|μs|ms|s|m|h|d)/gy;
const MAX_SECONDS_BIG = BigInt(MAX_DURATION_SECONDS);

/**
 * Whole seconds of a duration, exact up to MAX_DURATION_SECONDS; a larger duration is any number above it (its
 * exact size matters to no caller). `undefined` when the value is not in the format.
 */
function durationSeconds(value: unknown): number | undefined {
  // `+ 0` turns -0 into 0, as the BigInt round trip did.
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value + 0 : undefined;
  if (typeof value !== 'string') return undefined;
  if (secondsOfText.has(value)) return secondsOfText.get(value);
  const seconds = textSeconds(value.trim());
  // A text too long to be a duration is not kept: the cache holds short keys only.
  if (value.length > MAX_TEXT) return seconds;
  if (secondsOfText.size >= CACHE_LIMIT) secondsOfText.clear();
  secondsOfText.set(value, seconds);
  return seconds;
}

function textSeconds(text: string): number | undefined {
  // A 1,000-character string is no duration; the limit keeps BigInt work small.
  if (text.length === 0 || text.length > MAX_TEXT) return undefined;
  // Correctly rounded, so exact up to 2^53 and above MAX_DURATION_SECONDS exactly when the digits are.
  if (DIGITS.test(text)) return Number(text);
  PAIR.lastIndex = 0;
  let nanoseconds = 0n;
  let consumed = 0;
  for (let match = PAIR.exec(text); match; match = PAIR.exec(text)) {
    const unit = UNIT_NANOSECONDS[match[3]];
    const fraction = match[2] ?? '';
    nanoseconds += BigInt(match[1]) * unit + (fraction === '' ? 0n : (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length));
    consumed = PAIR.lastIndex;
  }
  if (consumed !== text.length) return undefined;
  const seconds = nanoseconds / NANOSECONDS_PER_SECOND;
  return seconds > MAX_SECONDS_BIG ? Number.POSITIVE_INFINITY : Number(seconds);
}
