import { createHash, randomInt, randomUUID } from 'crypto';
import { formatGoTime } from './go-time';
import { checkOutputSize, TEMPLATE_LIMITS, TemplateLimitError } from './limits';
import { goSprintf } from './printf';
import { formatValue, isPlainObject, isTruthy, NO_VALUE, TemplateBytes, type TemplateValue } from './values';

/**
 * How an argument is converted before a function sees it (Go's typed parameters):
 * `int` an integer, `string` text, `bytes` the Go string's bytes (text as UTF-8, or utf16le output as is),
 * `any` the value unchanged.
 */
export type ParamType = 'int' | 'string' | 'bytes' | 'any';

export interface FunctionContext {
  /** Milliseconds since the epoch. */
  now(): number;
}

type Arg = number | string | Buffer | TemplateValue;

export interface TemplateFunction {
  params: ParamType[];
  /** Type of any further arguments (Go's `...T`); absent for fixed arity. */
  variadic?: ParamType;
  call(args: Arg[], context: FunctionContext): TemplateValue;
}

/** A function failed; the evaluator reports it as `error calling <name>: <message>`. */
export class FunctionCallError extends Error {}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SHA256_PREFIX_LENGTH = 8;

function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Code points, so "N characters" never splits a surrogate pair. */
function characters(text: string): string[] {
  return Array.from(text);
}

const random: TemplateFunction = {
  params: ['int'],
  call: ([length]) => {
    const n = length as number;
    if (n < 0) throw new FunctionCallError(`length must be >= 0 but was ${n}`);
    if (n > TEMPLATE_LIMITS.maxRandomLength) {
      throw new TemplateLimitError(`template: random ${n}: the length may be at most ${TEMPLATE_LIMITS.maxRandomLength}`);
    }
    let out = '';
    for (let i = 0; i < n; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
    return out;
  },
};

const truncate: TemplateFunction = {
  params: ['int', 'string'],
  call: ([maxLength, text]) => {
    const n = maxLength as number;
    if (n <= 0) throw new FunctionCallError(`max length must be > 0 but was ${n}`);
    const chars = characters(text as string);
    return chars.length > n ? chars.slice(0, n).join('') : (text as string);
  },
};

/**
 * The spec: "truncates to N characters; the last 8 of those characters are the first 8 characters of the
 * SHA-256 hash of the truncated value". The truncated value is the input cut to N characters; its first N-8
 * characters are kept and followed by the first 8 hex characters of its hash, giving exactly N characters.
 */
const truncateSha256: TemplateFunction = {
  params: ['int', 'string'],
  call: ([maxLength, text]) => {
    const n = maxLength as number;
    if (n <= SHA256_PREFIX_LENGTH) {
      throw new FunctionCallError(`max length must be > ${SHA256_PREFIX_LENGTH} but was ${n}`);
    }
    const chars = characters(text as string);
    if (chars.length <= n) return text;
    const truncated = chars.slice(0, n).join('');
    const kept = chars.slice(0, n - SHA256_PREFIX_LENGTH).join('');
    return kept + sha256Hex(Buffer.from(truncated, 'utf8')).slice(0, SHA256_PREFIX_LENGTH);
  },
};

const unaryText = (transform: (text: string) => string): TemplateFunction => ({
  params: ['string'],
  call: ([text]) => transform(text as string),
});

const unaryBytes = (transform: (bytes: Buffer) => string): TemplateFunction => ({
  params: ['bytes'],
  call: ([bytes]) => transform(bytes as Buffer),
});

const noArguments = (produce: (context: FunctionContext) => string): TemplateFunction => ({
  params: [],
  call: (_args, context) => produce(context),
});

/** Functions of both template kinds (service-api.md "Template language"). */
const SERVICE_FUNCTIONS: Record<string, TemplateFunction> = {
  random,
  truncate,
  truncate_sha256: truncateSha256,
  uppercase: unaryText((t) => t.toUpperCase()),
  lowercase: unaryText((t) => t.toLowerCase()),
  // Go-style: `{{ .X | replace "-" "_" }}` passes the piped value last.
  replace: {
    params: ['string', 'string', 'string'],
    call: ([find, replacement, text]) => {
      const parts = (text as string).split(find as string);
      // Measured before joining: `replace "" "<long>"` multiplies the text's length.
      checkOutputSize((text as string).length + (parts.length - 1) * ((replacement as string).length - (find as string).length));
      return parts.join(replacement as string);
    },
  },
  sha256: unaryBytes((bytes) => sha256Hex(bytes)),
  base64: unaryBytes((bytes) => bytes.toString('base64')),
  unix_time: noArguments((c) => String(Math.floor(c.now() / 1000))),
  unix_time_millis: noArguments((c) => String(Math.floor(c.now()))),
  timestamp: { params: ['string'], call: ([layout], c) => formatGoTime(layout as string, c.now()) },
  uuid: noArguments(() => randomUUID()),
};

/** LDIF templates only: UTF-16LE bytes of the text, for directory password attributes (unicodePwd). */
const LDIF_FUNCTIONS: Record<string, TemplateFunction> = {
  utf16le: { params: ['string'], call: ([text]) => new TemplateBytes(Buffer.from(text as string, 'utf16le')) },
};

function compareKind(value: TemplateValue): 'number' | 'string' | 'bool' | 'nil' | 'other' {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string' || value instanceof TemplateBytes) return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (value === null || value === NO_VALUE || value === undefined) return 'nil';
  return 'other';
}

function comparable(a: TemplateValue, b: TemplateValue): [number | string | boolean | null, number | string | boolean | null] {
  const kindA = compareKind(a);
  const kindB = compareKind(b);
  if (kindA === 'other' || kindB === 'other') throw new FunctionCallError('invalid type for comparison');
  if (kindA !== kindB) throw new FunctionCallError('incompatible types for comparison');
  const plain = (v: TemplateValue) => (kindA === 'nil' ? null : kindA === 'string' ? String(v) : (v as number | boolean));
  return [plain(a), plain(b)];
}

function ordered(op: (a: number | string, b: number | string) => boolean): TemplateFunction {
  return {
    params: ['any', 'any'],
    call: ([a, b]) => {
      const [x, y] = comparable(a, b);
      if (typeof x === 'boolean' || x === null) throw new FunctionCallError('invalid type for comparison');
      return op(x, y as number | string);
    },
  };
}

/** Go's text/template built-ins used with these templates. */
const BUILTIN_FUNCTIONS: Record<string, TemplateFunction> = {
  printf: { params: ['string'], variadic: 'any', call: ([format, ...rest]) => goSprintf(format as string, rest) },
  print: {
    params: [],
    variadic: 'any',
    // fmt.Sprint puts spaces between operands when neither side is a string.
    call: (args) =>
      args
        .map((a, i) => {
          const text = formatValue(a === NO_VALUE ? null : a);
          const spaced = i > 0 && typeof a !== 'string' && typeof args[i - 1] !== 'string';
          return spaced ? ` ${text}` : text;
        })
        .join(''),
  },
  println: {
    params: [],
    variadic: 'any',
    call: (args) => `${args.map((a) => formatValue(a === NO_VALUE ? null : a)).join(' ')}\n`,
  },
  len: {
    params: ['any'],
    call: ([value]) => {
      if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
      if (value instanceof TemplateBytes) return value.bytes.length;
      if (Array.isArray(value)) return value.length;
      if (isPlainObject(value)) return Object.keys(value).length;
      throw new FunctionCallError(`len of type ${value === NO_VALUE || value === null ? 'nil' : typeof value}`);
    },
  },
  index: {
    params: ['any'],
    variadic: 'any',
    call: ([collection, ...keys]) => {
      let current: TemplateValue = collection;
      for (const key of keys) {
        if (Array.isArray(current) || typeof current === 'string') {
          if (typeof key !== 'number' || !Number.isInteger(key)) throw new FunctionCallError('cannot index slice/array with non-integer');
          const items: unknown[] = Array.isArray(current) ? current : [...Buffer.from(current, 'utf8')];
          if (key < 0 || key >= items.length) throw new FunctionCallError(`index out of range: ${key}`);
          current = items[key];
        } else if (isPlainObject(current)) {
          if (typeof key !== 'string') throw new FunctionCallError('value has type int; should be string');
          current = key in current ? current[key] : null;
        } else {
          throw new FunctionCallError(`can't index item of type ${current === null || current === NO_VALUE ? 'nil' : typeof current}`);
        }
      }
      return current;
    },
  },
  not: { params: ['any'], call: ([value]) => !isTruthy(value) },
  and: {
    params: ['any'],
    variadic: 'any',
    call: (args) => args.find((a) => !isTruthy(a)) ?? args[args.length - 1],
  },
  or: {
    params: ['any'],
    variadic: 'any',
    call: (args) => args.find((a) => isTruthy(a)) ?? args[args.length - 1],
  },
  eq: {
    params: ['any', 'any'],
    variadic: 'any',
    call: ([first, ...others]) =>
      others.some((other) => {
        const [a, b] = comparable(first, other);
        return a === b;
      }),
  },
  ne: {
    params: ['any', 'any'],
    call: ([a, b]) => {
      const [x, y] = comparable(a, b);
      return x !== y;
    },
  },
  lt: ordered((a, b) => a < b),
  le: ordered((a, b) => a <= b),
  gt: ordered((a, b) => a > b),
  ge: ordered((a, b) => a >= b),
};

/** The functions a template may call; `utf16le` only in LDIF templates. */
export function functionTable(ldif: boolean): ReadonlyMap<string, TemplateFunction> {
  const table = new Map<string, TemplateFunction>(Object.entries(BUILTIN_FUNCTIONS));
  for (const [name, fn] of Object.entries(SERVICE_FUNCTIONS)) table.set(name, fn);
  if (ldif) for (const [name, fn] of Object.entries(LDIF_FUNCTIONS)) table.set(name, fn);
  return table;
}
