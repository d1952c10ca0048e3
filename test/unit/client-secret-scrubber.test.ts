// The secret scrubber: a server that echoes what it was sent, in any encoding, never gets a secret past it.
// The encoders below are the test's own (Buffer, JSON.stringify, encodeURIComponent, URLSearchParams), not the
// scrubber's, so a form the scrubber forgets shows up as a failure.
import fc from 'fast-check';
import { REDACTED, SecretScrubber, scrubSecrets } from '../../src/client/secret-scrubber';

const SEED = 20261124;
const RUNS = 300;

const goJson = (value: string): string =>
  JSON.stringify(value).slice(1, -1).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const asciiJson = (value: string): string =>
  JSON.stringify(value).slice(1, -1).replace(/[^\x00-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`);
const jsJson = (value: string): string => JSON.stringify(value).slice(1, -1);
const b64 = (value: string): string => Buffer.from(value, 'utf8').toString('base64');

/** Every encoding a server may echo a value in, each by name. */
function echoForms(secret: string): Record<string, string> {
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
    upper: secret.toUpperCase(),
    lower: secret.toLowerCase(),
    hex: Buffer.from(secret, 'utf8').toString('hex'),
    'hex upper': Buffer.from(secret, 'utf8').toString('hex').toUpperCase(),
  };
}

/** What an echoing server answers: each form in an error text, and the whole JSON body, raw and base64. */
function serverMessage(secret: string, prefix: string): string {
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
function leaks(text: string, secret: string): string[] {
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

const nasty = fc.constantFrom('"', '\\', '\n', '\r', '\t', ' ', '/', '<', '>', '&', '+', '=', '%', "'", 'é', 'ß', '中', '😀', '\u2028', '\u0001', '{', '}');
const core = fc
  .array(fc.oneof(fc.string({ minLength: 1, maxLength: 3 }), nasty), { minLength: 6, maxLength: 24 })
  .map((parts) => parts.join(''))
  .filter((value) => value.trim().length >= 6);
const pem = fc
  .array(fc.base64String({ minLength: 8, maxLength: 64 }), { minLength: 1, maxLength: 4 })
  .map((lines) => `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`);
const padded = fc.tuple(fc.constantFrom('', ' ', '\n', '  \t'), core, fc.constantFrom('', '\n', ' ', '\r\n')).map(([a, b, c]) => `${a}${b}${c}`);
const secretArb = fc.oneof(core, pem, padded);

describe('SecretScrubber', () => {
  it(`leaves no encoding of a random secret in an echoing server's message (${RUNS} runs, seed ${SEED})`, () => {
    fc.assert(
      fc.property(secretArb, fc.string({ maxLength: 5 }), (secret, prefix) => {
        const scrubbed = new SecretScrubber([secret]).scrub(serverMessage(secret, prefix));
        expect(leaks(scrubbed, secret)).toEqual([]);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it(`removes several secrets at once, and the check above does catch an unscrubbed message (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(secretArb, secretArb, (first, second) => {
        const message = `${serverMessage(first, '')} ${serverMessage(second, 'ab')}`;
        expect(leaks(message, first).length).toBeGreaterThan(0);
        const scrubbed = new SecretScrubber([first, second]).scrub(message);
        expect(leaks(scrubbed, first)).toEqual([]);
        expect(leaks(scrubbed, second)).toEqual([]);
      }),
      { seed: SEED + 1, numRuns: RUNS },
    );
  });

  it('removes the JSON-escaped form of a secret holding a quote, a backslash and a newline', () => {
    const secret = 'pa"ss\\wo\nrd';
    const message = `invalid body: {"password":${JSON.stringify(secret)}}`;
    expect(scrubSecrets(message, [secret])).toBe(`invalid body: {"password":"${REDACTED}"}`);
  });

  it('removes a PEM key echoed without its trailing newline', () => {
    const key = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n';
    const message = `bad client_tls_key: ${JSON.stringify(key.trim())}`;
    expect(scrubSecrets(message, [key])).toBe(`bad client_tls_key: "${REDACTED}"`);
  });

  it('removes the base64 of a secret that sits at any offset inside a longer base64 text', () => {
    const secret = 'correct-horse-battery-staple';
    for (const prefix of ['', 'a', 'ab', 'abc', '{"password":"']) {
      const encoded = Buffer.from(`${prefix}${secret}" and more`).toString('base64');
      const scrubbed = scrubSecrets(`echo ${encoded}`, [secret]);
      expect(scrubbed).toContain(REDACTED);
      expect(leaks(scrubbed, secret)).toEqual([]);
    }
  });

  it('leaves ordinary text alone', () => {
    const message = 'POST /v1/auth/userpass/users/alice failed with HTTP 400: permission denied';
    expect(scrubSecrets(message, ['s3cret-value-1', 'another one'])).toBe(message);
    expect(scrubSecrets(message, [''])).toBe(message);
  });

  it('uses a marker that cannot itself be taken for the secret', () => {
    expect(scrubSecrets('x[redacted]y and red', ['red'])).not.toMatch(/red/i);
  });
});
