import { TemplateError } from './errors';

/** A place in the template source, 1-based like Go's `line:col`. */
export interface Position {
  line: number;
  col: number;
}

export type TokenKind =
  | 'text' // literal text outside actions
  | 'open' // {{ (trim markers already applied to neighbouring text)
  | 'close' // }}
  | 'field' // .Name or .A.B (value holds the names joined by '.')
  | 'dot' // .
  | 'variable' // $ or $.A (value holds the name path after '$', possibly empty)
  | 'identifier' // function names and keywords
  | 'string' // "..." or `...` (value holds the unquoted text)
  | 'number'
  | 'pipe' // |
  | 'lparen'
  | 'rparen'
  | 'declare' // := (recognized only to report that variables are unsupported)
  | 'eof';

export interface Token {
  kind: TokenKind;
  value: string;
  pos: Position;
}

const LEFT_DELIM = '{{';
const RIGHT_DELIM = '}}';

function isSpace(ch: string | undefined): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}

function isIdentifierChar(ch: string | undefined): boolean {
  return ch !== undefined && /[A-Za-z0-9_]/.test(ch);
}

/**
 * Splits a template into tokens the way Go's text/template lexer does for the supported subset.
 * Trim markers (`{{- ` and ` -}}`) are resolved here by trimming whitespace off the adjacent text tokens.
 */
export function lexTemplate(source: string): Token[] {
  const tokens: Token[] = [];
  let offset = 0;
  // Set by a ` -}}` so the next text token loses its leading whitespace.
  let trimNextText = false;

  // Offsets where each line starts, to turn an offset into line:col without rescanning the source.
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1);
  const positionAt = (index: number): Position => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (lineStarts[mid] <= index) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, col: index - lineStarts[low] + 1 };
  };
  const fail = (index: number, message: string): never => {
    const { line, col } = positionAt(index);
    throw new TemplateError(`template: ${line}:${col}: ${message}`);
  };

  while (offset < source.length) {
    const open = source.indexOf(LEFT_DELIM, offset);
    const textEnd = open < 0 ? source.length : open;
    // Go's left trim marker is "{{-" followed by whitespace; "{{-3}}" is the number -3.
    const trimLeft = open >= 0 && source[open + 2] === '-' && isSpace(source[open + 3]);
    let text = source.slice(offset, textEnd);
    if (trimNextText) text = text.replace(/^[ \t\r\n]+/, '');
    if (trimLeft) text = text.replace(/[ \t\r\n]+$/, '');
    trimNextText = false;
    if (text.length > 0) tokens.push({ kind: 'text', value: text, pos: positionAt(offset) });
    if (open < 0) break;

    tokens.push({ kind: 'open', value: LEFT_DELIM, pos: positionAt(open) });
    let i = open + 2 + (trimLeft ? 2 : 0);

    // Comments: {{/* ... */}}, written right against the delimiters (or trim markers), as Go requires.
    if (source.startsWith('/*', i)) {
      const end = source.indexOf('*/', i + 2);
      if (end < 0) fail(i, 'unclosed comment');
      let after = end + 2;
      const trimRight = /^[ \t\r\n]-}}/.test(source.slice(after, after + 4));
      if (trimRight) after += 2;
      if (!source.startsWith(RIGHT_DELIM, after)) fail(after, 'comment ends before closing delimiter');
      tokens.pop(); // a comment produces no action
      trimNextText = trimRight;
      offset = after + 2;
      continue;
    }

    for (;;) {
      const ch = source[i];
      if (ch === undefined) fail(open, 'unclosed action');
      if (isSpace(ch)) {
        // " -}}" closes the action and trims the following text.
        let j = i;
        while (isSpace(source[j])) j++;
        if (source.startsWith('-}}', j)) {
          tokens.push({ kind: 'close', value: RIGHT_DELIM, pos: positionAt(j) });
          trimNextText = true;
          i = j + 3;
          break;
        }
        i = j;
        continue;
      }
      if (source.startsWith(RIGHT_DELIM, i)) {
        tokens.push({ kind: 'close', value: RIGHT_DELIM, pos: positionAt(i) });
        i += 2;
        break;
      }
      const start = i;
      const pos = positionAt(start);
      if (ch === '|') {
        tokens.push({ kind: 'pipe', value: ch, pos });
        i++;
      } else if (ch === '(') {
        tokens.push({ kind: 'lparen', value: ch, pos });
        i++;
      } else if (ch === ')') {
        tokens.push({ kind: 'rparen', value: ch, pos });
        i++;
      } else if (ch === ':' && source[i + 1] === '=') {
        tokens.push({ kind: 'declare', value: ':=', pos });
        i += 2;
      } else if (ch === '"') {
        i++;
        let value = '';
        for (;;) {
          const c = source[i];
          if (c === undefined || c === '\n') fail(start, 'unterminated quoted string');
          if (c === '"') {
            i++;
            break;
          }
          if (c === '\\') {
            const decoded = decodeEscape(source, i);
            if (!decoded) fail(i, 'invalid syntax in quoted string');
            else {
              value += decoded.text;
              i = decoded.next;
            }
            continue;
          }
          value += c;
          i++;
        }
        tokens.push({ kind: 'string', value, pos });
      } else if (ch === '`') {
        const end = source.indexOf('`', i + 1);
        if (end < 0) fail(start, 'unterminated raw quoted string');
        tokens.push({ kind: 'string', value: source.slice(i + 1, end), pos });
        i = end + 1;
      } else if (ch === '.' && !/[0-9]/.test(source[i + 1] ?? '')) {
        if (!/[A-Za-z_]/.test(source[i + 1] ?? '')) {
          tokens.push({ kind: 'dot', value: '.', pos });
          i++;
        } else {
          const names: string[] = [];
          while (source[i] === '.' && /[A-Za-z_]/.test(source[i + 1] ?? '')) {
            let j = i + 1;
            while (isIdentifierChar(source[j])) j++;
            names.push(source.slice(i + 1, j));
            i = j;
          }
          tokens.push({ kind: 'field', value: names.join('.'), pos });
        }
      } else if (ch === '$') {
        let j = i + 1;
        while (isIdentifierChar(source[j])) j++;
        const name = source.slice(i + 1, j);
        if (name) fail(start, `undefined variable "$${name}"`);
        const names: string[] = [];
        while (source[j] === '.' && /[A-Za-z_]/.test(source[j + 1] ?? '')) {
          let k = j + 1;
          while (isIdentifierChar(source[k])) k++;
          names.push(source.slice(j + 1, k));
          j = k;
        }
        tokens.push({ kind: 'variable', value: names.join('.'), pos });
        i = j;
      } else if (/[0-9+\-.]/.test(ch)) {
        const match = /^[+-]?(0[xX][0-9a-fA-F_]+|[0-9_]*\.?[0-9_]+(?:[eE][+-]?[0-9]+)?|[0-9_]+\.)/.exec(source.slice(i));
        if (!match || isIdentifierChar(source[i + match[0].length])) {
          const bad = /^[^\s|()}]+/.exec(source.slice(i))?.[0] ?? ch;
          fail(start, `bad number syntax: "${bad}"`);
        } else {
          tokens.push({ kind: 'number', value: match[0], pos });
          i += match[0].length;
        }
      } else if (/[A-Za-z_]/.test(ch)) {
        let j = i;
        while (isIdentifierChar(source[j])) j++;
        tokens.push({ kind: 'identifier', value: source.slice(i, j), pos });
        i = j;
      } else {
        fail(start, `unexpected "${ch}" in command`);
      }
    }
    offset = i;
  }
  tokens.push({ kind: 'eof', value: '', pos: positionAt(source.length) });
  return tokens;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  '"': '"',
};

/** Decodes one Go string-literal escape starting at the backslash at `index`. */
function decodeEscape(source: string, index: number): { text: string; next: number } | undefined {
  const kind = source[index + 1];
  if (kind !== undefined && kind in SIMPLE_ESCAPES) return { text: SIMPLE_ESCAPES[kind], next: index + 2 };
  const hexLengths: Record<string, number> = { x: 2, u: 4, U: 8 };
  if (kind !== undefined && kind in hexLengths) {
    const digits = source.slice(index + 2, index + 2 + hexLengths[kind]);
    if (!/^[0-9a-fA-F]+$/.test(digits) || digits.length !== hexLengths[kind]) return undefined;
    const code = parseInt(digits, 16);
    if (kind === 'x') return { text: String.fromCharCode(code), next: index + 4 };
    if (code > 0x10ffff) return undefined;
    return { text: String.fromCodePoint(code), next: index + 2 + digits.length };
  }
  if (kind !== undefined && /[0-7]/.test(kind)) {
    const digits = source.slice(index + 1, index + 4);
    if (!/^[0-7]{3}$/.test(digits)) return undefined;
    return { text: String.fromCharCode(parseInt(digits, 8)), next: index + 4 };
  }
  return undefined;
}
