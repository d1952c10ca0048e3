// The encodings a server may echo a secret in, made with the platform's own encoders (not the scrubber's), and
// a search for any of them in a text. Shared by the scrubber's property test and the CLI's echoing-server test.

const goJson = (value: string): string =>
  JSON.stringify(value).slice(1, -1).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const asciiJson = (value: string): string =>
  // eslint-disable-next-line no-control-regex -- every character outside printable ASCII, controls included
  JSON.stringify(value).slice(1, -1).replace(/[^\x00-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`);
export const jsJson = (value: string): string => JSON.stringify(value).slice(1, -1);
export const b64 = (value: string): string => Buffer.from(value, 'utf8').toString('base64');

/** Every encoding a server may echo a value in, each by name. */
export function echoForms(secret: string): Record<string, string> {
  const trimmed = secret.trim();
  return {
    raw: secret,
    json: jsJson(secret),
    'json ascii': asciiJson(secret),
    'json go': goJson(secret),
    'json twice': jsJson(jsJson(secret)),
    trimmed,
    'trimmed json': jsJson(trimmed),
    base64: b64(secret),
    'base64 unpadded': b64(secret).replace(/=+$/, ''),
    base64url: Buffer.from(secret, 'utf8').toString('base64url'),
    'base64url padded': b64(secret).replace(/\+/g, '-').replace(/\//g, '_'),
    'base64 trimmed': b64(trimmed),
    'base64 of json': b64(jsJson(secret)),
    'url %20': encodeURIComponent(secret),
    'url +': encodeURIComponent(secret).replace(/%20/g, '+'),
    'url form': new URLSearchParams({ v: secret }).toString().slice(2),
    'url lower hex': encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    'url trimmed': encodeURIComponent(trimmed),
    'url of json': encodeURIComponent(jsJson(secret)),
    'url form of json': new URLSearchParams({ v: jsJson(secret) }).toString().slice(2),
    'hex of json': Buffer.from(jsJson(secret), 'utf8').toString('hex'),
    upper: secret.toUpperCase(),
    lower: secret.toLowerCase(),
    hex: Buffer.from(secret, 'utf8').toString('hex'),
    'hex upper': Buffer.from(secret, 'utf8').toString('hex').toUpperCase(),
  };
}

/** What an echoing server answers: each form in an error text, and the whole JSON body, raw and base64. */
export function serverMessage(secret: string, prefix: string): string {
  const body = JSON.stringify({ name: 'app', password: secret, note: 'x' });
  const forms = Object.entries(echoForms(secret)).map(([name, form]) => `${name}=<${form}>`);
  return [
    `1 error occurred:\n\t* invalid request ${prefix}${body}\n\n`,
    ...forms,
    `body(base64)=${prefix}${b64(body)}`,
    `body(base64url)=${Buffer.from(`${prefix}${body}`).toString('base64url')}`,
  ].join(' | ');
}

/** The forms of the secret still found in `text`; forms under 4 characters only when they are the secret. */
export function leaks(text: string, secret: string): string[] {
  const lower = text.toLowerCase();
  const found = Object.entries(echoForms(secret))
    .filter(([, form]) => form !== '' && (form.length >= 4 || form === secret))
    .filter(([, form]) => text.includes(form) || lower.includes(form.toLowerCase()))
    .map(([name]) => name);
  // Any base64 run left in the text must not decode to something holding the secret (or its JSON form).
  for (const run of text.match(/[A-Za-z0-9+/_-]{8,}={0,2}/g) ?? []) {
    const decoded = Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    if (decoded.includes(secret) || decoded.includes(jsJson(secret))) found.push(`base64 run ${run}`);
  }
  return found;
}

/** Python's repr of the value's UTF-8 bytes (`b'...'` without the prefix): `\xNN` for every byte outside ASCII. */
const pythonRepr = (value: string): string =>
  [...Buffer.from(value, 'utf8')]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      if (char === '\\' || char === "'") return `\\${char}`;
      if (char === '\n') return '\\n';
      if (char === '\r') return '\\r';
      if (char === '\t') return '\\t';
      return byte >= 0x20 && byte < 0x7f ? char : `\\x${byte.toString(16).padStart(2, '0')}`;
    })
    .join('');

const HTML_NAMED: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/**
 * The encodings that got secrets past the scrubber's list of forms (issue 19): each made here with the test's own
 * code, so that the scrubber's decoders are checked against independent encoders.
 */
export function attackForms(secret: string): Record<string, string> {
  // A cut echo: 17 characters past any PEM armour line (what leaked of a key body).
  const armour = /^-----BEGIN [A-Z ]+-----\n/.exec(secret)?.[0].length ?? 0;
  const cut = secret.slice(0, armour + 17);
  const hexBytes = [...Buffer.from(secret, 'utf8')].map((byte) => byte.toString(16).padStart(2, '0'));
  return {
    'hex with spaces': hexBytes.join(' '),
    'hex with colons, upper': hexBytes.join(':').toUpperCase(),
    'every character as \\uXXXX': [...Array(secret.length).keys()].map((i) => `\\u${secret.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
    'JSON escaped three times': jsJson(jsJson(jsJson(secret))),
    'HTML entities': [...secret].map((char) => HTML_NAMED[char] ?? (/[A-Za-z0-9 ]/.test(char) ? char : `&#${char.codePointAt(0)};`)).join(''),
    'HTML hex entities': [...secret].map((char) => `&#x${char.codePointAt(0)!.toString(16)};`).join(''),
    'base64 wrapped at 76 columns': (b64(JSON.stringify({ name: 'app', password: secret, padding: 'x'.repeat(40) })).match(/.{1,76}/g) ?? []).join('\n'),
    'URL-encoded twice': encodeURIComponent(encodeURIComponent(secret)),
    "a language's repr": `b'${pythonRepr(secret)}'`,
    'truncated echo': cut,
    'truncated JSON echo': jsJson(cut),
    'truncated base64 echo': b64(cut).replace(/=+$/, ''),
  };
}

/** The attack forms still found in `text`, and any run of 8 characters of the secret (a cut echo). */
export function attackLeaks(text: string, secret: string): string[] {
  const found = Object.entries(attackForms(secret))
    .filter(([, form]) => form.length >= 8 && text.includes(form))
    .map(([name]) => name);
  const value = secret.replace(/\r\n/g, '\n');
  for (let i = 0; i + 8 <= value.length; i++) {
    const run = value.slice(i, i + 8);
    if (run.trim() !== '' && !/^-*(BEGIN|END)? ?[A-Z ]*-*$/.test(run) && text.includes(run)) found.push(`fragment ${JSON.stringify(run)}`);
  }
  return found;
}

/** Secrets with the characters that got through: quote, backslash, slash, plus, ampersand, non-ASCII, newlines; a PEM key. */
export const ATTACK_SECRETS: Record<string, string> = {
  punctuation: 'q"uo\\te/sl+as&h-2026',
  'non-ASCII': 'pässwörd-中文-secret-ß',
  newlines: 'line one\nline two\r\nline three',
  'PEM key': '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgq1Xe+/Zz\nK3jd8Pq0Lw+5bQ/2vN1xY7uHc4RtWm9Sa+e=\n-----END PRIVATE KEY-----\n',
};
