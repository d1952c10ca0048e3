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
 */

export const REDACTED = '[redacted]';
const MIN_FORM_LENGTH = 4;
const MIN_FRAGMENT_LENGTH = 8;
/** Candidate forms are indexed by their first KEY_LENGTH folded characters. */
const KEY_LENGTH = 3;
const MAX_PASSES = 50;

export class SecretScrubber {
  readonly #secrets = new Set<string>();
  readonly #index = new Map<string, Set<string>>();
  readonly #short = new Set<string>();
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
      for (const form of secretForms(secret)) {
        const folded = fold(form);
        if (folded.length < KEY_LENGTH) {
          this.#short.add(folded);
          continue;
        }
        const key = folded.slice(0, KEY_LENGTH);
        const bucket = this.#index.get(key) ?? new Set<string>();
        bucket.add(folded);
        this.#index.set(key, bucket);
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
    if (this.#secrets.size === 0) return text;
    this.#indexPending();
    const marker = this.#chosenMarker();
    let current = text;
    for (let pass = 0; ; pass++) {
      const ranges = this.#matches(current);
      if (ranges.length === 0) return current;
      // A match may straddle a marker and the text after it; repeat until nothing matches. Past MAX_PASSES
      // (pathological secrets), drop matches without a marker, which strictly shrinks the text.
      current = replaceRanges(current, ranges, pass < MAX_PASSES ? marker : '');
    }
  }

  #chosenMarker(): string {
    if (this.#marker === undefined) {
      this.#marker = [REDACTED, '***', '#'].find((candidate) => this.#matches(candidate).length === 0) ?? '';
    }
    return this.#marker;
  }

  #matches(text: string): Array<[number, number]> {
    const folded = fold(text);
    const ranges: Array<[number, number]> = [];
    for (let i = 0; i + KEY_LENGTH <= folded.length; i++) {
      const candidates = this.#index.get(folded.slice(i, i + KEY_LENGTH));
      if (!candidates) continue;
      for (const form of candidates) if (folded.startsWith(form, i)) ranges.push([i, i + form.length]);
    }
    for (const form of this.#short) {
      for (let at = folded.indexOf(form); at >= 0; at = folded.indexOf(form, at + 1)) ranges.push([at, at + form.length]);
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
