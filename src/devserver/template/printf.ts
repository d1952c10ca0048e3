import { checkOutputSize, TEMPLATE_LIMITS } from './limits';
import { formatNumber, formatValue, goTypeName, NO_VALUE, TemplateBytes, type TemplateValue } from './values';

/** Go's fmt.Sprintf for the verbs templates use: %v %s %d %q %x %X %f %t %c and %%, with flags and width. */
export function goSprintf(format: string, args: TemplateValue[]): string {
  let out = '';
  let argIndex = 0;
  let i = 0;
  while (i < format.length) {
    const ch = format[i];
    if (ch !== '%') {
      out += ch;
      i++;
      continue;
    }
    const spec = /^%([-+# 0]*)(\d*)(?:\.(\d*))?(.?)/su.exec(format.slice(i));
    if (!spec) break; // unreachable: the pattern matches any "%..." prefix
    const [whole, flags, widthText, precisionText, verb] = spec;
    i += whole.length;
    if (verb === '') {
      out += '%!(NOVERB)';
      continue;
    }
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (argIndex >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    let width = widthText ? Number(widthText) : 0;
    let precision = precisionText === undefined ? undefined : Number(precisionText || '0');
    // Go's fmt refuses widths and precisions over 1e6 the same way; here it also bounds the padding made.
    if (width > TEMPLATE_LIMITS.maxPrintfWidth) {
      out += '%!(BADWIDTH)';
      width = 0;
    }
    if (precision !== undefined && precision > TEMPLATE_LIMITS.maxPrintfWidth) {
      out += '%!(BADPREC)';
      precision = undefined;
    }
    const options: VerbOptions = {
      leftAlign: flags.includes('-'),
      zeroPad: flags.includes('0') && !flags.includes('-'),
      plus: flags.includes('+'),
      width,
      precision,
    };
    // Each verb may pad to a million characters: check before padding and after, so 600 `%999999d` stop at
    // the output limit (a 400) instead of building a 600 MB string (a 500, "Invalid string length").
    checkOutputSize(out.length + width);
    out += formatVerb(verb, normalize(args[argIndex++]), options);
    checkOutputSize(out.length);
  }
  if (argIndex < args.length) {
    const extra = args.slice(argIndex).map((a) => {
      const value = normalize(a);
      return value === null ? '<nil>' : `${goTypeName(value)}=${formatValue(value)}`;
    });
    out += `%!(EXTRA ${extra.join(', ')})`;
  }
  return out;
}

interface VerbOptions {
  leftAlign: boolean;
  zeroPad: boolean;
  plus: boolean;
  width: number;
  precision: number | undefined;
}

/** A missing field passed to printf is Go's nil interface. */
function normalize(value: TemplateValue): TemplateValue {
  return value === NO_VALUE || value === undefined ? null : value;
}

function pad(text: string, options: VerbOptions, numeric: boolean): string {
  if (text.length >= options.width) return text;
  if (options.leftAlign) return text.padEnd(options.width, ' ');
  if (options.zeroPad && numeric) {
    const sign = /^[+-]/.test(text) ? text[0] : '';
    return sign + text.slice(sign.length).padStart(options.width - sign.length, '0');
  }
  return text.padStart(options.width, ' ');
}

function badVerb(verb: string, value: TemplateValue): string {
  return value === null ? `%!${verb}(<nil>)` : `%!${verb}(${goTypeName(value)}=${formatValue(value)})`;
}

function isText(value: TemplateValue): value is string | TemplateBytes {
  return typeof value === 'string' || value instanceof TemplateBytes;
}

function formatVerb(verb: string, value: TemplateValue, options: VerbOptions): string {
  switch (verb) {
    case 'v':
      if (typeof value === 'number') return pad(signed(formatNumber(value), value, options), options, true);
      return pad(formatValue(value), options, false);
    case 's': {
      if (!isText(value) && (value === null || typeof value !== 'object')) return badVerb(verb, value);
      let text = formatValue(value);
      if (options.precision !== undefined) text = Array.from(text).slice(0, options.precision).join('');
      return pad(text, options, false);
    }
    case 'd':
      if (typeof value !== 'number' || !Number.isInteger(value)) return badVerb(verb, value);
      return pad(signed(String(value), value, options), options, true);
    case 'q':
      if (isText(value)) return pad(goQuote(value.toString()), options, false);
      if (typeof value === 'number' && Number.isInteger(value)) {
        return pad(`'${rune(value)}'`, options, false);
      }
      return badVerb(verb, value);
    case 'x':
    case 'X': {
      let hex: string;
      if (typeof value === 'string') hex = Buffer.from(value, 'utf8').toString('hex');
      else if (value instanceof TemplateBytes) hex = value.bytes.toString('hex');
      else if (typeof value === 'number' && Number.isInteger(value)) {
        hex = (value < 0 ? '-' : '') + Math.abs(value).toString(16);
      } else return badVerb(verb, value);
      return pad(verb === 'X' ? hex.toUpperCase() : hex, options, typeof value === 'number');
    }
    case 'f':
    case 'F':
      if (typeof value !== 'number') return badVerb(verb, value);
      return pad(signed(fixed(value, options.precision ?? 6), value, options), options, true);
    case 't':
      if (typeof value !== 'boolean') return badVerb(verb, value);
      return pad(String(value), options, false);
    case 'c':
      if (typeof value !== 'number' || !Number.isInteger(value)) return badVerb(verb, value);
      return pad(rune(value), options, false);
    default:
      return badVerb(verb, value);
  }
}

/** Go prints an invalid code point as U+FFFD; JavaScript would throw. */
function rune(code: number): string {
  return code >= 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '\ufffd';
}

/** toFixed stops at 100 digits (it throws beyond); further digits are printed as zeros. */
function fixed(value: number, precision: number): string {
  if (precision <= 100 || !Number.isFinite(value)) return value.toFixed(Math.min(precision, 100));
  return value.toFixed(100) + '0'.repeat(precision - 100);
}

function signed(text: string, value: number, options: VerbOptions): string {
  return options.plus && value >= 0 ? `+${text}` : text;
}

/** Go's strconv.Quote: double-quoted, with Go escapes for control and non-printable characters. */
export function goQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\x07') out += '\\a';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\v') out += '\\v';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code >= 0x80 && code < 0xa0) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
