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
  return seconds === undefined || seconds > BigInt(MAX_DURATION_SECONDS) ? undefined : Number(seconds);
}

export function isDuration(value: unknown): boolean {
  return parseDuration(value) !== undefined;
}

/** What is wrong with a duration value, or undefined when it is one. */
export function durationProblem(value: unknown): string | undefined {
  const seconds = durationSeconds(value);
  if (seconds === undefined) return `expected ${DURATION_ALLOWED}`;
  if (seconds > BigInt(MAX_DURATION_SECONDS)) return `at most ${MAX_DURATION_SECONDS} seconds (about 292 years), the longest duration the service can hold`;
  return undefined;
}

/** Whole seconds of any duration, however large; undefined when the value is not in the format. */
function durationSeconds(value: unknown): bigint | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  // A 1,000-character string is no duration; the limit keeps BigInt work small.
  if (text.length === 0 || text.length > 256) return undefined;
  if (/^\d+$/.test(text)) return BigInt(text);
  const pattern = /(\d+)(?:\.(\d+))?(ns|us|µs|μs|ms|s|m|h|d)/gy;
  let nanoseconds = 0n;
  let consumed = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const unit = UNIT_NANOSECONDS[match[3]];
    const fraction = match[2] ?? '';
    nanoseconds += BigInt(match[1]) * unit + (fraction === '' ? 0n : (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length));
    consumed = pattern.lastIndex;
  }
  if (consumed !== text.length) return undefined;
  return nanoseconds / NANOSECONDS_PER_SECOND;
}
