import { badRequest } from './respond';

// Nanoseconds per unit: the service adds number-unit pairs up in whole nanoseconds, as signed 64-bit.
const UNIT_NANOSECONDS: Record<string, bigint> = {
  ns: 1n, us: 1_000n, 'µs': 1_000n, 'μs': 1_000n, ms: 1_000_000n, s: 1_000_000_000n,
  m: 60_000_000_000n, h: 3_600_000_000_000n, d: 86_400_000_000_000n,
};
const NANOSECONDS_PER_SECOND = 1_000_000_000n;
const MAX_NANOSECONDS = 2n ** 63n - 1n;
// No real duration is longer; the limit keeps the BigInt work on hostile input small.
const MAX_DURATION_TEXT = 256;

/**
 * Parses the service's duration format: integer seconds (number or numeric string) or a string of
 * number-unit pairs (`1h`, `90s`, `1h30m`, `48d`). Returns whole seconds: each pair's fraction is cut to
 * the nanosecond, the pairs are summed exactly and the total truncated to seconds, so `4.1m` is 246 s
 * (floating point gives 245.99999). Throws a 400 naming the field when the value is not a duration or is
 * longer than the service can hold (2^63 - 1 nanoseconds).
 */
export function parseDurationSeconds(value: unknown, field: string): number {
  const seconds = durationSeconds(value);
  if (seconds !== undefined) return seconds;
  throw badRequest(`invalid duration for field "${field}": ${JSON.stringify(value)}`);
}

function durationSeconds(value: unknown): number | undefined {
  if (typeof value === 'number') {
    return Number.isFinite(value) && value >= 0 && value <= Number(MAX_NANOSECONDS / NANOSECONDS_PER_SECOND)
      ? Math.floor(value) : undefined;
  }
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text.length === 0 || text.length > MAX_DURATION_TEXT) return undefined;
  if (/^\d+$/.test(text)) {
    const whole = BigInt(text);
    return whole * NANOSECONDS_PER_SECOND <= MAX_NANOSECONDS ? Number(whole) : undefined;
  }
  const pattern = /(\d+)(?:\.(\d+))?(ns|us|µs|μs|ms|s|m|h|d)/gy;
  let total = 0n;
  let consumed = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const unit = UNIT_NANOSECONDS[match[3]];
    const fraction = match[2] ?? '';
    total += BigInt(match[1]) * unit;
    if (fraction !== '') total += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
    if (total > MAX_NANOSECONDS) return undefined;
    consumed = pattern.lastIndex;
  }
  if (consumed !== text.length) return undefined;
  return Number(total / NANOSECONDS_PER_SECOND);
}

/** Optional duration field: undefined, null and '' mean "not set". */
export function optionalDurationSeconds(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return parseDurationSeconds(value, field);
}
