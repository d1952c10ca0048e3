// The encodings a server may echo a secret in, made with the platform's own encoders (not the scrubber's), and
// a search for any of them in a text. Shared by the scrubber's property test and the CLI's echoing-server test.

const goJson = (value: string): string =>
  JSON.stringify(value).slice(1, -1).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const asciiJson = (value: string): string =>
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
