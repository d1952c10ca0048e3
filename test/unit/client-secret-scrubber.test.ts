// The secret scrubber: a server that echoes what it was sent, in any encoding, never gets a secret past it.
// The encoders below are the test's own (Buffer, JSON.stringify, encodeURIComponent, URLSearchParams), not the
// scrubber's, so a form the scrubber forgets shows up as a failure.
import fc from 'fast-check';
import { REDACTED, SecretScrubber, WITHHELD, scrubSecrets } from '../../src/client/secret-scrubber';
import { ATTACK_SECRETS, attackForms, attackLeaks, leaks, serverMessage } from '../e2e/client-echo-forms';

const SEED = 20261124;
const RUNS = 300;

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

describe('SecretScrubber.scrubServerText: decodes before it matches', () => {
  const forms = Object.entries(ATTACK_SECRETS).flatMap(([kind, secret]) =>
    Object.entries(attackForms(secret)).map(([encoding, form]) => [`${kind} as ${encoding}`, secret, form] as const));

  it.each(forms)('%s: nothing of the secret is left', (_name, secret, form) => {
    const scrubber = new SecretScrubber([secret, 'the-service-token-value']);
    const text = `1 error occurred:\n\t* invalid value ${form} in request\n\n`;
    expect(attackLeaks(text, secret).length).toBeGreaterThan(0);
    const scrubbed = scrubber.scrubServerText(text);
    expect(attackLeaks(scrubbed, secret)).toEqual([]);
    expect(leaks(scrubbed, secret)).toEqual([]);
  });

  it('leaves the service\'s ordinary messages as they are', () => {
    const scrubber = new SecretScrubber([...Object.values(ATTACK_SECRETS), 'hvs.CAESIJ2bXlk4mQ']);
    for (const text of [
      'permission denied',
      'missing password',
      '1 error occurred:\n\t* ttl cannot be greater than max_ttl\n\n',
      'no handler for route "auth/userpass/users/alice"',
      'Endpoint ignored these unrecognized parameters: [extra_field]',
      'invalid request: cannot parse "1h30x" as a duration (want 90s, 1h, 3600)',
    ]) {
      expect(scrubber.scrubServerText(text)).toBe(text);
    }
  });

  it('removes any run of 8 characters of a secret (a cut echo) and caps the length', () => {
    const secret = 'correct-horse-battery-staple';
    const scrubber = new SecretScrubber([secret]);
    expect(scrubber.scrubServerText('got "battery-sta" here')).toBe(`got "${REDACTED}" here`);
    const long = scrubber.scrubServerText(`bad: ${'x'.repeat(2000)}`);
    expect(long.length).toBeLessThan(600);
    expect(long).toMatch(/\.\.\. \(1505 more characters not shown\)$/);
  });

  it('withholds the whole text when only a decoded form holds the secret', () => {
    const secret = 'q"uo\\te/sl+as&h-2026';
    expect(new SecretScrubber([secret]).scrubServerText(`value ${attackForms(secret)['every character as \\uXXXX']}`)).toBe(WITHHELD);
  });
});
