import { badRequest } from './respond';

const UNIT_SECONDS: Record<string, number> = { ns: 1e-9, us: 1e-6, 'µs': 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600, d: 86400 };

/**
 * Parses the service's duration format: integer seconds (number or numeric string) or a string of
 * number-unit pairs (`1h`, `90s`, `1h30m`, `48d`). Returns whole seconds (fractions are truncated, as the
 * service stores seconds). Throws a 400 naming the field when the value is not a duration.
 */
export function parseDurationSeconds(value: unknown, field: string): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.floor(value);
  if (typeof value === 'string') {
    const text = value.trim();
    if (/^\d+$/.test(text)) return parseInt(text, 10);
    const pattern = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)/gy;
    let total = 0;
    let consumed = 0;
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
      total += parseFloat(match[1]) * UNIT_SECONDS[match[2]];
      consumed = pattern.lastIndex;
    }
    if (text.length > 0 && consumed === text.length) return Math.floor(total);
  }
  throw badRequest(`invalid duration for field "${field}": ${JSON.stringify(value)}`);
}

/** Optional duration field: undefined, null and '' mean "not set". */
export function optionalDurationSeconds(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return parseDurationSeconds(value, field);
}
