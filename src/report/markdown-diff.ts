/**
 * The lines of a resource's ```diff block in the pull-request comment. GitHub colours a line by its first
 * character: `+` green, `-` red, `!` orange; `~` (the terminal's in-place mark) stays grey. So an in-place change
 * of a visible value is a `-` old line and a `+` new line, and a secret changed in place (whose values are never
 * shown) is a `!` line. A code block does not wrap: a value wider than a line is laid out over several lines
 * (JSON pretty-printed, a long string cut into pieces) and a multi-line string as a heredoc, every line keeping its symbol,
 * so the colour runs down the whole value and nothing runs off the side.
 */
import { SENSITIVE_VALUE, type AttributeLine } from './plan-view';
import { serialize } from './values';

/** Widest diff line before a value is laid out over several lines (GitHub shows about 120 monospace columns). */
export const DIFF_LINE_WIDTH = 100;

/** Continuation lines of a value are indented this much past the symbol. */
const INDENT = '    ';

export function diffLines(line: AttributeLine): string[] {
  const notes = [line.forcesReplacement ? 'forces replacement' : undefined, line.note].filter((n) => n !== undefined);
  const suffix = notes.map((note) => ` # ${note}`).join('');
  const raw = line.raw;
  if (raw === undefined || line.value === SENSITIVE_VALUE) {
    // A secret: only its mask. Changed in place, it is a `!` line (GitHub's "changed" colour).
    return [`${line.symbol === '~' ? '!' : line.symbol} ${line.name} = ${line.value}${suffix}`];
  }
  if (line.symbol === '~') {
    return [...valueLines('-', line.name, raw.before, ''), ...valueLines('+', line.name, raw.after, suffix)];
  }
  return valueLines(line.symbol, line.name, line.symbol === '-' ? raw.before : raw.after, suffix);
}

/** `<symbol> name = value<suffix>`, over several lines when wider than DIFF_LINE_WIDTH. */
function valueLines(symbol: '+' | '-', name: string, value: unknown, suffix: string): string[] {
  const single = `${symbol} ${name} = ${serialize(value)}${suffix}`;
  // A multi-line string (an LDIF template) always reads better as its lines than with `\n` escapes.
  const multiLine = typeof value === 'string' && value.includes('\n');
  if (single.length <= DIFF_LINE_WIDTH && !multiLine) return [single];
  const body = layout(value);
  const first = `${symbol} ${name} = ${body[0]}`;
  const rest = body.slice(1).map((text) => `${symbol} ${INDENT}${text}`);
  const lines = [first, ...rest];
  lines[lines.length - 1] += suffix;
  return lines.flatMap((text, index) => cut(text, symbol, index === 0 ? '' : INDENT));
}

/** A value as lines of text: pretty JSON for lists and objects, a heredoc for multi-line strings. */
function layout(value: unknown): string[] {
  if (typeof value === 'string' && value.includes('\n')) {
    const lines = value.split('\n');
    const marker = heredocMarker(lines);
    return [`<<${marker}`, ...lines, marker];
  }
  if (value !== null && typeof value === 'object') {
    try {
      return JSON.stringify(value, null, 2).split('\n');
    } catch {
      // A value JSON cannot encode (a cycle) is shown on one line, as everywhere else.
    }
  }
  return [serialize(value)];
}

/** `EOT`, or `EOT_1`, ... when a line of the string is `EOT` itself. */
function heredocMarker(lines: readonly string[]): string {
  let marker = 'EOT';
  for (let i = 1; lines.includes(marker); i += 1) marker = `EOT_${i}`;
  return marker;
}

/**
 * A line still wider than DIFF_LINE_WIDTH (a long string with no line breaks) cut into pieces, each further
 * piece starting with the symbol and an indent. Never splits a surrogate pair.
 */
function cut(text: string, symbol: string, indent: string): string[] {
  if (text.length <= DIFF_LINE_WIDTH) return [text];
  const prefix = `${symbol} ${indent}${INDENT}`;
  const pieces: string[] = [];
  let rest = text;
  let width = DIFF_LINE_WIDTH;
  while (rest.length > width) {
    let end = width;
    const code = rest.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    pieces.push(rest.slice(0, end));
    rest = rest.slice(end);
    width = DIFF_LINE_WIDTH - prefix.length;
  }
  pieces.push(rest);
  return pieces.map((piece, index) => (index === 0 ? piece : prefix + piece));
}
