/**
 * The times `drift` takes: `--until DATE|DURATION` (when an acknowledgement lapses) and `--since DURATION` (how far
 * back `drift history` looks). A duration is a whole number with a unit (m, h, d, w; `30d`, `12h`, `1w2d`); a
 * date is ISO 8601 (`2026-12-31`, or a full time with its zone).
 */
import { UsageError } from './usage-error';

const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function parseDuration(flag: string, value: string): number {
  const text = value.trim();
  const parts = [...text.matchAll(/(\d+)([mhdw])/g)];
  if (text === '' || parts.map((part) => part[0]).join('') !== text) {
    throw new UsageError(`${flag} must be a duration such as 12h, 30d or 2w (units m, h, d, w), got "${value}"`);
  }
  return parts.reduce((total, part) => total + Number(part[1]) * UNIT_MS[part[2]], 0);
}

/** `--until`: an ISO date or time, or a duration from `now`; always in the future. ISO time returned. */
export function parseUntil(value: string, now: Date): string {
  const text = value.trim();
  let at: number;
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    at = Date.parse(text);
    if (Number.isNaN(at)) throw new UsageError(`--until must be a date such as 2026-12-31 (or a duration such as 30d), got "${value}"`);
  } else {
    at = now.getTime() + parseDuration('--until', text);
  }
  if (at <= now.getTime()) throw new UsageError(`--until ${value} is not in the future: give a later date or a duration such as 30d`);
  return new Date(at).toISOString();
}
