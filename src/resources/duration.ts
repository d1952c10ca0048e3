/**
 * The service's duration format: integer seconds (a number or a string of digits) or number-unit pairs
 * (`1h`, `90s`, `1h30m`, `1.5h`, `48d`). Canonical form: whole seconds (the service stores seconds).
 */
const UNIT_SECONDS: Record<string, number> = { ns: 1e-9, us: 1e-6, 'µs': 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600, d: 86400 };

export const DURATION_ALLOWED = 'a duration: integer seconds or a string such as "90s", "15m", "1h30m", "48d"';

/** Whole seconds of a duration, or `undefined` when the value is not a duration. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return parseInt(text, 10);
  const pattern = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)/gy;
  let total = 0;
  let consumed = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    total += parseFloat(match[1]) * UNIT_SECONDS[match[2]];
    consumed = pattern.lastIndex;
  }
  if (text.length === 0 || consumed !== text.length) return undefined;
  return Math.floor(total);
}

export function isDuration(value: unknown): boolean {
  return parseDuration(value) !== undefined;
}
