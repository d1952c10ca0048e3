/**
 * Go's time.Format for a UTC time. Layouts are written with Go's reference time
 * `Mon Jan 2 15:04:05 MST 2006`; anything that is not a reference token is copied as is.
 */
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const LONG_MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
];

function pad(value: number, width: number, fill = '0'): string {
  return String(value).padStart(width, fill);
}

type Formatter = (date: Date) => string;

const hour12 = (date: Date): number => date.getUTCHours() % 12 || 12;
const dayOfYear = (date: Date): number =>
  Math.floor((date.getTime() - Date.UTC(date.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;

/**
 * Reference tokens, longest first where one is a prefix of another (Go's nextStdChunk order).
 * The zone is always UTC: `MST` prints `UTC`, the `Z` forms print `Z`, the numeric forms print zeros.
 */
const TOKENS: [string, Formatter][] = [
  ['January', (d) => LONG_MONTHS[d.getUTCMonth()]],
  ['Jan', (d) => LONG_MONTHS[d.getUTCMonth()].slice(0, 3)],
  ['Monday', (d) => LONG_DAYS[d.getUTCDay()]],
  ['Mon', (d) => LONG_DAYS[d.getUTCDay()].slice(0, 3)],
  ['MST', () => 'UTC'],
  ['2006', (d) => pad(d.getUTCFullYear(), 4)],
  ['2', (d) => String(d.getUTCDate())],
  ['_2006', (d) => `_${pad(d.getUTCFullYear(), 4)}`],
  ['__2', (d) => pad(dayOfYear(d), 3, ' ')],
  ['_2', (d) => pad(d.getUTCDate(), 2, ' ')],
  ['01', (d) => pad(d.getUTCMonth() + 1, 2)],
  ['02', (d) => pad(d.getUTCDate(), 2)],
  ['03', (d) => pad(hour12(d), 2)],
  ['04', (d) => pad(d.getUTCMinutes(), 2)],
  ['05', (d) => pad(d.getUTCSeconds(), 2)],
  ['06', (d) => pad(d.getUTCFullYear() % 100, 2)],
  ['002', (d) => pad(dayOfYear(d), 3)],
  ['1', (d) => String(d.getUTCMonth() + 1)],
  ['15', (d) => pad(d.getUTCHours(), 2)],
  ['3', (d) => String(hour12(d))],
  ['4', (d) => String(d.getUTCMinutes())],
  ['5', (d) => String(d.getUTCSeconds())],
  ['PM', (d) => (d.getUTCHours() >= 12 ? 'PM' : 'AM')],
  ['pm', (d) => (d.getUTCHours() >= 12 ? 'pm' : 'am')],
  ['Z070000', () => 'Z'],
  ['Z07:00:00', () => 'Z'],
  ['Z0700', () => 'Z'],
  ['Z07:00', () => 'Z'],
  ['Z07', () => 'Z'],
  ['-070000', () => '+000000'],
  ['-07:00:00', () => '+00:00:00'],
  ['-0700', () => '+0000'],
  ['-07:00', () => '+00:00'],
  ['-07', () => '+00'],
];

/** Go matches tokens at each position in a fixed order; this mirrors it for the tokens above. */
function tokenAt(layout: string, index: number): [string, Formatter] | undefined {
  const rest = layout.slice(index);
  const ch = rest[0];
  const find = (name: string): [string, Formatter] | undefined =>
    rest.startsWith(name) ? TOKENS.find(([n]) => n === name) : undefined;
  switch (ch) {
    case 'J':
      return find('January') ?? find('Jan');
    case 'M':
      // Go only treats "Mon"/"MST" as tokens when not followed by a lower-case letter (e.g. "Month").
      if (rest.startsWith('Monday')) return find('Monday');
      if (rest.startsWith('Mon') && !/^[a-z]/.test(rest.slice(3))) return find('Mon');
      if (rest.startsWith('MST')) return find('MST');
      return undefined;
    case '0':
      if (/^0[1-6]/.test(rest)) return find(rest.slice(0, 2));
      if (rest.startsWith('002')) return find('002');
      return undefined;
    case '1':
      return find('15') ?? find('1');
    case '2':
      return find('2006') ?? find('2');
    case '_':
      if (rest.startsWith('_2006')) return find('_2006');
      if (rest.startsWith('__2')) return find('__2');
      return find('_2');
    case '3':
    case '4':
    case '5':
      return find(ch);
    case 'P':
      return find('PM');
    case 'p':
      return find('pm');
    case '-':
      return find('-070000') ?? find('-07:00:00') ?? find('-0700') ?? find('-07:00') ?? find('-07');
    case 'Z':
      return find('Z070000') ?? find('Z07:00:00') ?? find('Z0700') ?? find('Z07:00') ?? find('Z07');
    default:
      return undefined;
  }
}

/** `.000`/`,000` print that many fraction digits; `.999` the same with trailing zeros (and dot) removed. */
function fractionAt(layout: string, index: number): { text: string; length: number } | undefined {
  const match = /^[.,](0+|9+)/.exec(layout.slice(index));
  // Go only takes the fraction when it does not continue into more digits.
  if (!match || /^[0-9]/.test(layout.slice(index + match[0].length))) return undefined;
  return { text: match[0], length: match[0].length };
}

export function formatGoTime(layout: string, epochMs: number): string {
  const date = new Date(epochMs);
  const millis = date.getUTCMilliseconds();
  let out = '';
  let i = 0;
  while (i < layout.length) {
    const fraction = fractionAt(layout, i);
    if (fraction) {
      const digits = fraction.text.length - 1;
      // We keep milliseconds; finer digits are zeros.
      const full = (pad(millis, 3) + '000000').slice(0, digits);
      if (fraction.text[1] === '0') out += fraction.text[0] + full;
      else {
        const trimmed = full.replace(/0+$/, '');
        if (trimmed) out += fraction.text[0] + trimmed;
      }
      i += fraction.length;
      continue;
    }
    const token = tokenAt(layout, i);
    if (token) {
      out += token[1](date);
      i += token[0].length;
      continue;
    }
    out += layout[i];
    i++;
  }
  return out;
}
