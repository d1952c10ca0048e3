/**
 * Removes secret values from server text before anyone sees it. A server (or a proxy) may quote what it was
 * sent in any encoding: as is, JSON-escaped (as a JSON-in-JSON error message does), trimmed (PEM keys lose
 * their trailing newline), base64 (std or url-safe, padded or not, alone or inside a longer base64 text),
 * URL-encoded (`%20` or `+`), hex, and in other letter case. Every form of every secret is matched case-
 * insensitively and replaced by a marker.
 *
 * Forms shorter than MIN_FORM_LENGTH are not matched unless they are the secret itself: a 2-character hex or
 * base64 form would match ordinary text everywhere. Base64 fragments (the characters that stay the same
 * wherever the value sits inside a longer base64 text) need MIN_FRAGMENT_LENGTH for the same reason.
 *
 * Two more layers catch what no list of forms can (a server may escape a value three times, write every
 * character as `\uXXXX`, space its hex dump, wrap its base64 at 76 columns, or cut the echo short):
 * `scrubServerText`, for text a server wrote (error strings, warnings, a redirect target, a body excerpt):
 * - also removes any run of MIN_FRAGMENT_LENGTH characters of a secret, wherever it appears (a truncated echo);
 * - then decodes what is left every way a server encodes
 *   (JSON, `\u`, `\x` and repr escapes, HTML entities, URL encoding, hex with or without separators, base64
 *   wrapped or not), repeatedly, and when any decoded view still holds a fragment of a secret the whole text is
 *   withheld. It also caps the text's length.
 */

export const REDACTED = '[redacted]';
const MIN_FORM_LENGTH = 4;
const MIN_FRAGMENT_LENGTH = 8;
/** Candidate forms are indexed by their first KEY_LENGTH folded characters. */
const KEY_LENGTH = 3;
const MAX_PASSES = 50;

/** What replaces a server text whose decoded form quoted a secret: nothing of it can be shown safely. */
export const WITHHELD = '[withheld: the server quoted a secret, encoded]';
/** Server texts longer than this are cut (an echo of a whole request body helps nobody). */
export const MAX_SERVER_TEXT_LENGTH = 500;
/** Decoding looks at no more of a server text than this; the rest is cut before anything is shown. */
const MAX_DECODED_INPUT = 4 * MAX_SERVER_TEXT_LENGTH;
/** Decoded views of one text examined at most (each decoder applied to each view, repeatedly). */
const MAX_VIEWS = 64;

export class SecretScrubber {
  readonly #secrets = new Set<string>();
  /**
   * Forms by their first KEY_LENGTH folded characters, then by length: secrets that share a start (every user's
   * password begins "password-of-") then cost one lookup per length at a position, not one comparison per form.
   */
  readonly #index = new Map<string, Map<number, Set<string>>>();
  readonly #short = new Set<string>();
  /** Every run of MIN_FRAGMENT_LENGTH characters of every secret (folded), armour lines of PEM keys excepted. */
  readonly #fragments = new Set<string>();
  /** Secrets shorter than a fragment (folded), looked for whole in decoded views. */
  readonly #shortSecrets = new Set<string>();
  #marker: string | undefined;
  #pending: string[] = [];

  constructor(secrets: Iterable<string> = []) {
    this.add(secrets);
  }

  /**
   * Adds secret values (empty ones are ignored: they are in every text). Their forms are indexed on the first
   * scrub: a run registers every secret of the stack but scrubs only the rare error or warning.
   */
  add(secrets: Iterable<string>): void {
    for (const secret of secrets) {
      if (secret === '' || this.#secrets.has(secret)) continue;
      this.#secrets.add(secret);
      this.#pending.push(secret);
    }
  }

  #indexPending(): void {
    if (this.#pending.length === 0) return;
    for (const secret of this.#pending) {
      for (const fragment of secretFragments(secret)) this.#fragments.add(fragment);
      if (secret.trim().length < MIN_FRAGMENT_LENGTH && secret.trim().length >= MIN_FORM_LENGTH) this.#shortSecrets.add(fold(secret.trim()));
      for (const form of secretForms(secret)) {
        const folded = fold(form);
        if (folded.length < KEY_LENGTH) {
          this.#short.add(folded);
          continue;
        }
        const key = folded.slice(0, KEY_LENGTH);
        let byLength = this.#index.get(key);
        if (!byLength) this.#index.set(key, (byLength = new Map<number, Set<string>>()));
        let forms = byLength.get(folded.length);
        if (!forms) byLength.set(folded.length, (forms = new Set<string>()));
        forms.add(folded);
      }
    }
    this.#pending = [];
    this.#marker = undefined;
  }

  get size(): number {
    return this.#secrets.size;
  }

  /** The text with every form of every secret replaced by `[redacted]` (or a shorter marker if that holds one). */
  scrub(text: string): string {
    return this.#replaceMatches(text, false);
  }

  #replaceMatches(text: string, fragments: boolean): string {
    if (this.#secrets.size === 0) return text;
    this.#indexPending();
    const marker = this.#chosenMarker();
    let current = text;
    for (let pass = 0; ; pass++) {
      const ranges = this.#matches(current, fragments);
      if (ranges.length === 0) return current;
      // A match may straddle a marker and the text after it; repeat until nothing matches. Past MAX_PASSES
      // (pathological secrets), drop matches without a marker, which strictly shrinks the text.
      current = replaceRanges(current, ranges, pass < MAX_PASSES ? marker : '');
    }
  }

  /**
   * Text a server wrote (an error string, a warning, a redirect target, a body excerpt): withheld whole when any
   * decoded form of it quotes a fragment of a secret, else scrubbed as `scrub` does; cut to `maxLength`.
   */
  scrubServerText(text: string, maxLength = MAX_SERVER_TEXT_LENGTH): string {
    const considered = text.length > MAX_DECODED_INPUT ? text.slice(0, MAX_DECODED_INPUT) : text;
    const alreadyCut = text.length - considered.length;
    if (this.#secrets.size === 0) return capLength(considered, maxLength, alreadyCut);
    // The known forms are replaced where they are (the rest of the text stays readable); what a decoder still
    // finds after that is in a form the list does not know, somewhere in the text: the whole text is withheld.
    const scrubbed = this.#replaceMatches(considered, true);
    if (decodedViews(scrubbed).some((view) => this.#quotesSecret(view))) return WITHHELD;
    return capLength(scrubbed, maxLength, alreadyCut);
  }

  #quotesSecret(view: string): boolean {
    const folded = fold(view);
    for (let i = 0; i + MIN_FRAGMENT_LENGTH <= folded.length; i++) {
      if (this.#fragments.has(folded.slice(i, i + MIN_FRAGMENT_LENGTH))) return true;
    }
    for (const secret of this.#shortSecrets) if (folded.includes(secret)) return true;
    return false;
  }

  #chosenMarker(): string {
    if (this.#marker === undefined) {
      this.#marker = [REDACTED, '***', '#'].find((candidate) => this.#matches(candidate).length === 0) ?? '';
    }
    return this.#marker;
  }

  #matches(text: string, fragments = false): Array<[number, number]> {
    const folded = fold(text);
    const ranges: Array<[number, number]> = [];
    for (let i = 0; i + KEY_LENGTH <= folded.length; i++) {
      const byLength = this.#index.get(folded.slice(i, i + KEY_LENGTH));
      if (!byLength) continue;
      for (const [length, forms] of byLength) {
        if (i + length <= folded.length && forms.has(folded.slice(i, i + length))) ranges.push([i, i + length]);
      }
    }
    for (const form of this.#short) {
      for (let at = folded.indexOf(form); at >= 0; at = folded.indexOf(form, at + 1)) ranges.push([at, at + form.length]);
    }
    if (fragments) {
      for (let i = 0; i + MIN_FRAGMENT_LENGTH <= folded.length; i++) {
        if (this.#fragments.has(folded.slice(i, i + MIN_FRAGMENT_LENGTH))) ranges.push([i, i + MIN_FRAGMENT_LENGTH]);
      }
    }
    return ranges;
  }
}

/** Convenience for one-off use. */
export function scrubSecrets(text: string, secrets: Iterable<string>): string {
  return new SecretScrubber(secrets).scrub(text);
}

function replaceRanges(text: string, ranges: Array<[number, number]>, marker: string): string {
  ranges.sort((a, b) => a[0] - b[0]);
  let out = '';
  let position = 0;
  let [start, end] = ranges[0];
  const flush = (): void => {
    out += text.slice(position, start) + marker;
    position = end;
  };
  for (const [from, to] of ranges.slice(1)) {
    if (from <= end) end = Math.max(end, to);
    else {
      flush();
      [start, end] = [from, to];
    }
  }
  flush();
  return out + text.slice(position);
}

/** Lower case, one UTF-16 unit for one, so that positions in the folded text are positions in the original. */
function fold(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  let out = '';
  for (const unit of text) {
    const folded = unit.toLowerCase();
    out += folded.length === unit.length ? folded : unit;
  }
  return out;
}

/** Every form a server may echo the secret in (before case folding). */
export function secretForms(secret: string): string[] {
  const bases = unique([secret, secret.trim(), secret.trimStart(), secret.trimEnd(), secret.replace(/\r\n/g, '\n')]);
  // Matching folds case; these catch full case mappings that change length (e.g. "ß" and "SS").
  const forms: string[] = [secret.toLowerCase(), secret.toUpperCase()];
  const add = (form: string | undefined, fragment = false): void => {
    if (form === undefined || form === '') return;
    if (form !== secret && form.length < (fragment ? MIN_FRAGMENT_LENGTH : MIN_FORM_LENGTH)) return;
    forms.push(form);
  };
  for (const base of bases) {
    const texts = unique([base, ...jsonForms(base), jsonEscape(jsonEscape(base, JS_JSON), JS_JSON)]);
    // Each encoding applies to the value and to its JSON-escaped forms (a server may URL-encode, hex-dump or
    // base64 the JSON body it received).
    for (const text of texts) {
      add(text);
      for (const form of base64Forms(text)) add(form.text, form.fragment);
      for (const form of urlForms(text)) add(form);
      add(Buffer.from(text, 'utf8').toString('hex'));
    }
  }
  return unique(forms);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

interface JsonStyle {
  /** Characters with a two-character escape (besides `"` and `\`). */
  short: Record<string, string>;
  nonAscii: boolean;
  /** `<`, `>`, `&`, U+2028 and U+2029 as \u escapes (Go's encoding/json). */
  html: boolean;
  slash: boolean;
}

const JS_SHORT = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const GO_SHORT = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const JS_JSON: JsonStyle = { short: JS_SHORT, nonAscii: false, html: false, slash: false };

/** The JSON string bodies (without quotes) the encoders of common server languages write. */
function jsonForms(value: string): string[] {
  const styles: JsonStyle[] = [
    JS_JSON,
    { short: JS_SHORT, nonAscii: true, html: false, slash: false },
    { short: JS_SHORT, nonAscii: false, html: false, slash: true },
    { short: GO_SHORT, nonAscii: false, html: true, slash: false },
    { short: GO_SHORT, nonAscii: true, html: true, slash: false },
  ];
  return styles.map((style) => jsonEscape(value, style));
}

function jsonEscape(value: string, style: JsonStyle): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const char = value[i];
    const code = value.charCodeAt(i);
    const unicode = `\\u${code.toString(16).padStart(4, '0')}`;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (char === '/' && style.slash) out += '\\/';
    else if (style.short[char] !== undefined) out += style.short[char];
    else if (code < 0x20 || (style.nonAscii && code > 0x7e)) out += unicode;
    else if (style.html && (char === '<' || char === '>' || char === '&' || code === 0x2028 || code === 0x2029)) out += unicode;
    else out += char;
  }
  return out;
}

function urlForms(value: string): string[] {
  const forms = [percentEncode(value, '%20'), percentEncode(value, '+')];
  for (const encode of [encodeURIComponent, encodeURI]) {
    try {
      const encoded = encode(value);
      forms.push(encoded, encoded.replace(/%20/g, '+'));
    } catch {
      // A lone surrogate: percentEncode above covers it (as the UTF-8 replacement character).
    }
  }
  forms.push(new URLSearchParams({ v: value }).toString().slice(2));
  return forms;
}

const UNRESERVED = new Set('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~');

/** RFC 3986: everything but unreserved characters as %XX of the UTF-8 bytes. */
function percentEncode(value: string, space: '%20' | '+'): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    if (UNRESERVED.has(char)) out += char;
    else if (byte === 0x20) out += space;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * The whole value's base64 (std and url-safe, padded and not), and for each of the three byte alignments the
 * run of characters that depends on the value's bytes alone: what any base64 text holding the value shows.
 */
function base64Forms(value: string): Array<{ text: string; fragment: boolean }> {
  const bytes = Buffer.from(value, 'utf8');
  const forms: Array<{ text: string; fragment: boolean }> = [];
  const whole = bytes.toString('base64');
  forms.push({ text: whole, fragment: false }, { text: whole.replace(/=+$/, ''), fragment: false });
  forms.push({ text: bytes.toString('base64url'), fragment: false }, { text: toUrlSafe(whole), fragment: false });
  for (let align = 0; align < 3; align++) {
    const encoded = Buffer.concat([Buffer.alloc(align), bytes]).toString('base64').replace(/=+$/, '');
    const first = Math.ceil((8 * align) / 6);
    const last = Math.floor((8 * (align + bytes.length)) / 6) - 1;
    if (last < first) continue;
    const fragment = encoded.slice(first, last + 1);
    forms.push({ text: fragment, fragment: true }, { text: toUrlSafe(fragment), fragment: true });
  }
  return forms;
}

function toUrlSafe(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_');
}

/** `text` cut to `maxLength` characters, saying how much was cut (`alreadyCut`: characters cut before). */
function capLength(text: string, maxLength: number, alreadyCut: number): string {
  if (text.length <= maxLength && alreadyCut === 0) return text;
  const kept = text.slice(0, maxLength);
  return `${kept}... (${text.length - kept.length + alreadyCut} more characters not shown)`;
}

const PEM_ARMOUR = /^-----(BEGIN|END) [A-Z0-9 ]+-----$/;

/**
 * Every run of MIN_FRAGMENT_LENGTH characters of the secret, folded, for a secret at least that long; runs that
 * lie within a PEM armour line (`-----BEGIN PRIVATE KEY-----`, the same in every key) or are only whitespace
 * are no secret and are left out.
 */
function secretFragments(secret: string): string[] {
  const value = secret.replace(/\r\n/g, '\n');
  if (value.trim().length < MIN_FRAGMENT_LENGTH) return [];
  const armour = new Array<boolean>(value.length).fill(false);
  let lineStart = 0;
  for (const line of value.split('\n')) {
    if (PEM_ARMOUR.test(line.trim())) for (let i = lineStart; i < lineStart + line.length; i++) armour[i] = true;
    lineStart += line.length + 1;
  }
  const folded = fold(value);
  const fragments: string[] = [];
  for (let i = 0; i + MIN_FRAGMENT_LENGTH <= value.length; i++) {
    const run = folded.slice(i, i + MIN_FRAGMENT_LENGTH);
    if (run.trim() === '' || armour.slice(i, i + MIN_FRAGMENT_LENGTH).every(Boolean)) continue;
    fragments.push(run);
  }
  return fragments;
}

/**
 * The text and every text a decoder makes of it, decoders applied again to what they made (JSON escaped three
 * times takes three rounds), at most MAX_VIEWS in all.
 */
export function decodedViews(text: string): string[] {
  const views = [text];
  const seen = new Set(views);
  for (let next = 0; next < views.length && views.length < MAX_VIEWS; next++) {
    for (const decode of DECODERS) {
      for (const view of decode(views[next])) {
        if (view.length < MIN_FORM_LENGTH || seen.has(view) || views.length >= MAX_VIEWS) continue;
        seen.add(view);
        views.push(view);
      }
    }
  }
  return views;
}

type Decoder = (text: string) => string[];

/** Backslash escapes of JSON, JavaScript, Go and Python (`\n`, `\"`, `\'`, `\/`, `\uXXXX`, `\UXXXXXXXX`, `\xNN`, octal). */
const unescapeBackslashes: Decoder = (text) => {
  if (!text.includes('\\')) return [];
  const bytes: number[] = [];
  let out = '';
  const flushBytes = (): void => {
    if (bytes.length > 0) out += Buffer.from(bytes).toString('utf8');
    bytes.length = 0;
  };
  const SIMPLE: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', a: '\x07', 0: '\0', '"': '"', "'": "'", '\\': '\\', '/': '/' };
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char !== '\\' || i + 1 >= text.length) {
      flushBytes();
      out += char;
      continue;
    }
    const next = text[i + 1];
    const hex = (length: number): number | undefined => {
      const digits = text.slice(i + 2, i + 2 + length);
      return digits.length === length && /^[0-9a-fA-F]+$/.test(digits) ? parseInt(digits, 16) : undefined;
    };
    if (next === 'x' && hex(2) !== undefined) {
      bytes.push(hex(2)!);
      i += 3;
      continue;
    }
    flushBytes();
    if (next === 'u' && hex(4) !== undefined) {
      out += String.fromCharCode(hex(4)!);
      i += 5;
    } else if (next === 'U' && hex(8) !== undefined && hex(8)! <= 0x10ffff) {
      out += String.fromCodePoint(hex(8)!);
      i += 9;
    } else if (/^[0-3][0-7]{2}$/.test(text.slice(i + 1, i + 4))) {
      bytes.push(parseInt(text.slice(i + 1, i + 4), 8));
      i += 3;
    } else if (SIMPLE[next] !== undefined) {
      out += SIMPLE[next];
      i += 1;
    } else out += char;
  }
  flushBytes();
  return out === text ? [] : [out];
};

const NAMED_ENTITIES: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'", nbsp: '\u00a0', sol: '/', bsol: '\\', plus: '+', equals: '=', percnt: '%', num: '#', colon: ':', semi: ';', comma: ',', excl: '!', quest: '?', commat: '@', lpar: '(', rpar: ')', lsqb: '[', rsqb: ']', lcub: '{', rcub: '}', verbar: '|', grave: '`', hat: '^', ast: '*', dollar: '$', lowbar: '_', period: '.', newline: '\n', tab: '\t' };

const decodeHtmlEntities: Decoder = (text) => {
  if (!text.includes('&')) return [];
  const out = text.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,8});?/g, (entity, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? entity;
  });
  return out === text ? [] : [out];
};

/** `%XX` as UTF-8 bytes, with `+` kept and as a space (both forms occur). */
const decodePercent: Decoder = (text) => {
  if (!/%[0-9a-fA-F]{2}/.test(text) && !text.includes('+')) return [];
  const decode = (input: string): string =>
    input.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
  const views = [decode(text), decode(text.replace(/\+/g, ' '))];
  return views.filter((view) => view !== text);
};

/** Runs of hex byte pairs, joined or separated by spaces, colons, dashes or `0x`: each run as UTF-8 text. */
const decodeHex: Decoder = (text) => {
  const runs = text.match(/(?:(?:0x)?[0-9a-fA-F]{2}[\s:,-]?){4,}/g);
  if (!runs) return [];
  const decoded = runs.map((run) => run.replace(/0x/gi, '').replace(/[^0-9a-fA-F]/g, '')).filter((hex) => hex.length % 2 === 0 && hex.length >= 8);
  // Runs with an odd digit count lost or gained a nibble at an edge: try both halves.
  for (const run of runs) {
    const hex = run.replace(/0x/gi, '').replace(/[^0-9a-fA-F]/g, '');
    if (hex.length % 2 === 1) decoded.push(hex.slice(1), hex.slice(0, -1));
  }
  return decoded.length === 0 ? [] : [decoded.map((hex) => Buffer.from(hex, 'hex').toString('utf8')).join('\n')];
};

/**
 * Runs of base64 (std or url-safe), lines wrapped by newlines joined: each decoded from each of the four
 * character offsets (whatever came before the encoded value in the run, one offset starts on its boundary).
 */
const decodeBase64: Decoder = (text) => {
  const runs = text.match(/[A-Za-z0-9+/_-]{4,}(?:={0,2}(?:\r?\n|\\r?\\n)[A-Za-z0-9+/_-]{4,})*={0,2}/g);
  if (!runs) return [];
  const decoded: string[] = [];
  for (const run of runs) {
    const joined = run.replace(/\\r|\\n|[\r\n=]/g, '').replace(/-/g, '+').replace(/_/g, '/');
    if (joined.length < 12) continue;
    for (let offset = 0; offset < 4; offset++) decoded.push(Buffer.from(joined.slice(offset), 'base64').toString('utf8'));
  }
  return decoded.length === 0 ? [] : [decoded.join('\n')];
};

const DECODERS: readonly Decoder[] = [unescapeBackslashes, decodeHtmlEntities, decodePercent, decodeHex, decodeBase64];
