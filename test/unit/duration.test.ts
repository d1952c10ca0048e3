/**
 * The duration parser of src/resources keeps a text's seconds once computed and parses numbers without BigInt
 * (it runs for every duration field of every resource of a plan). Its answers must stay those of the
 * implementation it replaced, kept here as the reference: exact BigInt sums for every call.
 */
import fc from 'fast-check';
import { durationProblem, MAX_DURATION_SECONDS, parseDuration } from '../../src/resources/duration';

const NANOSECONDS_PER_SECOND = 1_000_000_000n;
const UNIT_NANOSECONDS: Record<string, bigint> = {
  ns: 1n, us: 1_000n, 'µs': 1_000n, 'μs': 1_000n, ms: 1_000_000n, s: NANOSECONDS_PER_SECOND,
  m: 60n * NANOSECONDS_PER_SECOND, h: 3_600n * NANOSECONDS_PER_SECOND, d: 86_400n * NANOSECONDS_PER_SECOND,
};

/** The implementation before the cache (8819572), verbatim but for its name. */
function referenceSeconds(value: unknown): bigint | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
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

function referenceParse(value: unknown): number | undefined {
  const seconds = referenceSeconds(value);
  return seconds === undefined || seconds > BigInt(MAX_DURATION_SECONDS) ? undefined : Number(seconds);
}

function referenceProblem(value: unknown): 'format' | 'too large' | undefined {
  const seconds = referenceSeconds(value);
  if (seconds === undefined) return 'format';
  return seconds > BigInt(MAX_DURATION_SECONDS) ? 'too large' : undefined;
}

function problemKind(value: unknown): 'format' | 'too large' | undefined {
  const problem = durationProblem(value);
  if (problem === undefined) return undefined;
  return problem.startsWith('expected ') ? 'format' : 'too large';
}

const units = Object.keys(UNIT_NANOSECONDS);
const digits = (max: number) => fc.stringMatching(new RegExp(`^[0-9]{1,${max}}$`));
const pair = fc.record({ whole: digits(12), fraction: fc.option(digits(12), { nil: undefined }), unit: fc.constantFrom(...units) })
  .map(({ whole, fraction, unit }) => `${whole}${fraction === undefined ? '' : `.${fraction}`}${unit}`);
const space = fc.constantFrom('', ' ', '\t', '\n ');

/** Durations and near misses: pairs, digits around the largest duration, junk, numbers of every kind. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.tuple(space, fc.array(pair, { minLength: 1, maxLength: 4 }), space).map(([before, pairs, after]) => `${before}${pairs.join('')}${after}`),
  fc.tuple(fc.array(pair, { maxLength: 3 }), fc.constantFrom('', 'x', '1', '.5s', 'h1', ' 1s', '1.s', '-1s', '1S'), fc.array(pair, { maxLength: 2 }))
    .map(([before, odd, after]) => `${before.join('')}${odd}${after.join('')}`),
  digits(30),
  fc.bigInt({ min: BigInt(MAX_DURATION_SECONDS) - 3n, max: BigInt(MAX_DURATION_SECONDS) + 3n }).map((n) => `${'0'.repeat(Number(n % 3n))}${n}`),
  fc.tuple(fc.integer({ min: -3, max: 3 }), fc.constantFrom('s', 'ns', 'm')).map(([delta, unit]) => {
    const nanoseconds = (BigInt(MAX_DURATION_SECONDS) + 1n) * NANOSECONDS_PER_SECOND + BigInt(delta);
    return `${nanoseconds / (UNIT_NANOSECONDS[unit])}${unit}`;
  }),
  fc.string({ maxLength: 12 }),
  fc.constant(' '.repeat(300) + '1h'),
  fc.constant('1'.repeat(257)),
  fc.integer(),
  fc.double(),
  fc.constantFrom(-0, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, MAX_DURATION_SECONDS, MAX_DURATION_SECONDS + 1, Infinity, NaN),
  fc.constantFrom(null, undefined, true, {}, ['1h'], 10n),
);

test('parseDuration and durationProblem answer as the reference does, the first time and from the cache', () => {
  fc.assert(
    fc.property(anyValue, (value) => {
      for (let time = 0; time < 2; time++) {
        const parsed = parseDuration(value);
        const expected = referenceParse(value);
        expect(Object.is(parsed, expected)).toBe(true);
        expect(problemKind(value)).toBe(referenceProblem(value));
      }
    }),
    { numRuns: 5000 },
  );
});

test('more distinct texts than the cache holds are still parsed exactly', () => {
  for (let n = 0; n < 3000; n++) {
    const text = `${n}h${n % 60}m${n % 7}.${n}s`;
    expect(parseDuration(text)).toBe(referenceParse(text));
  }
  expect(parseDuration('1h')).toBe(3600);
});

test('a duration text seen before and a number are parsed without BigInt work', () => {
  expect(parseDuration('4.35m')).toBe(261);
  const bigInt = jest.spyOn(globalThis, 'BigInt');
  try {
    for (let n = 0; n < 100; n++) {
      expect(parseDuration('4.35m')).toBe(261);
      expect(parseDuration(3600)).toBe(3600);
      expect(parseDuration('86400')).toBe(86400);
      expect(durationProblem(MAX_DURATION_SECONDS + 1)).toContain('at most');
    }
    expect(bigInt).not.toHaveBeenCalled();
  } finally {
    bigInt.mockRestore();
  }
});
