// `--until` and `--since` of the drift commands.
import { parseDuration, parseUntil } from '../../src/cli/run/drift-times';

const NOW = new Date('2026-03-01T12:00:00.000Z');

test('durations with units m, h, d, w', () => {
  expect(parseDuration('--since', '90m')).toBe(90 * 60_000);
  expect(parseDuration('--since', '1w2d')).toBe(9 * 86_400_000);
  for (const bad of ['', '12', '5s', '1d 2h', 'x']) expect(() => parseDuration('--since', bad)).toThrow(/--since must be a duration such as 12h, 30d or 2w/);
});

test('--until: a date, a time or a duration from now, in the future only', () => {
  expect(parseUntil('2026-12-31', NOW)).toBe('2026-12-31T00:00:00.000Z');
  expect(parseUntil('2026-03-01T13:00:00Z', NOW)).toBe('2026-03-01T13:00:00.000Z');
  expect(parseUntil('30d', NOW)).toBe('2026-03-31T12:00:00.000Z');
  expect(() => parseUntil('2026-01-01', NOW)).toThrow('--until 2026-01-01 is not in the future');
  expect(() => parseUntil('2026-13-45', NOW)).toThrow(/--until must be a date/);
});
