import {
  errorsOf,
  isEnvelope,
  listFromBody,
  objectFromBody,
  parseJsonText,
  payloadOf,
  warningsOf,
} from '../../src/client/response-shapes';

const envelope = (data: unknown, extra: Record<string, unknown> = {}) => ({
  request_id: 'r1',
  lease_id: '',
  renewable: false,
  lease_duration: 0,
  data,
  wrap_info: null,
  warnings: null,
  auth: null,
  ...extra,
});

describe('isEnvelope', () => {
  it('recognises the full envelope, with or without mount_type', () => {
    expect(isEnvelope(envelope({ a: 1 }))).toBe(true);
    expect(isEnvelope(envelope({ a: 1 }, { mount_type: 'system' }))).toBe(true);
  });

  it('recognises a body that carries only data', () => {
    expect(isEnvelope({ data: { a: 1 } })).toBe(true);
  });

  it('does not take a top-level object with its own fields plus "data" for an envelope', () => {
    expect(isEnvelope({ data: 'x', username: 'svc', password: 'p' })).toBe(false);
  });

  it('does not take arrays, null or objects without data for an envelope', () => {
    expect(isEnvelope(['a'])).toBe(false);
    expect(isEnvelope(null)).toBe(false);
    expect(isEnvelope({ service_account_names: ['a'], ttl: 86400 })).toBe(false);
  });
});

describe('objectFromBody', () => {
  it('returns data of an envelope', () => {
    expect(objectFromBody(envelope({ binddn: 'cn=admin' }))).toEqual({ ok: true, value: { binddn: 'cn=admin' } });
  });

  it('returns a top-level object as is (library read, static-cred)', () => {
    const library = { service_account_names: ['a@example.org'], ttl: 86400, max_ttl: 86400, disable_check_in_enforcement: false };
    expect(objectFromBody(library)).toEqual({ ok: true, value: library });
  });

  it('reads no body and data null as absent', () => {
    expect(objectFromBody(undefined)).toEqual({ ok: true, value: undefined });
    expect(objectFromBody(envelope(null))).toEqual({ ok: true, value: undefined });
  });

  it('reports an array or a scalar where an object was expected', () => {
    expect(objectFromBody(['a'])).toEqual({ ok: false, detail: 'an array where an object was expected' });
    expect(objectFromBody(envelope('text'))).toEqual({ ok: false, detail: 'a string where an object was expected' });
  });
});

describe('listFromBody', () => {
  it('returns a bare JSON array (directory lists)', () => {
    expect(listFromBody(['svc-a', 'team/'])).toEqual({ ok: true, value: ['svc-a', 'team/'] });
  });

  it('returns data.keys of an envelope', () => {
    expect(listFromBody(envelope({ keys: ['alice', 'bob'] }))).toEqual({ ok: true, value: ['alice', 'bob'] });
  });

  it('returns data.keys when the envelope carries more fields in data (sync destinations)', () => {
    const body = envelope({ keys: ['cloud1-sm/'], key_info: { 'cloud1-sm/': ['one'] }, total_destinations: 1 });
    expect(listFromBody(body)).toEqual({ ok: true, value: ['cloud1-sm/'] });
  });

  it('returns keys of a body holding only {keys}', () => {
    expect(listFromBody({ keys: ['x'] })).toEqual({ ok: true, value: ['x'] });
  });

  it('reads no body and data null as an empty list', () => {
    expect(listFromBody(undefined)).toEqual({ ok: true, value: [] });
    expect(listFromBody(envelope(null))).toEqual({ ok: true, value: [] });
  });

  it('reports an object without keys, keys that is not an array, and entries that are not strings', () => {
    expect(listFromBody(envelope({ names: [] }))).toEqual({ ok: false, detail: 'an object without "keys" where a list was expected' });
    expect(listFromBody(envelope({ keys: 'a' }))).toEqual({ ok: false, detail: '"keys" holding a string instead of an array' });
    expect(listFromBody([1, 'a'])).toEqual({ ok: false, detail: 'a list with entries that are not strings (a number)' });
    expect(listFromBody('a')).toEqual({ ok: false, detail: 'a string where a list was expected' });
  });
});

describe('parseJsonText, payloadOf, warningsOf, errorsOf', () => {
  it('parses JSON, treats empty text as no body, and reports non-JSON with its start only when given a safe excerpt', () => {
    expect(parseJsonText('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonText('')).toEqual({ ok: true, value: undefined });
    expect(parseJsonText('<html>\n<body>Bad Gateway</body>', (start) => start)).toEqual({
      ok: false,
      detail: 'a body that is not JSON (starts with "<html> <body>Bad Gateway</body>")',
    });
    expect(parseJsonText('echo: password=hunter2-is-my-secret')).toEqual({
      ok: false,
      detail: 'a body that is not JSON (35 characters, not shown: the request carried values that may be secret, and servers echo them)',
    });
  });

  it('returns the envelope data or the body itself', () => {
    expect(payloadOf(envelope({ a: 1 }))).toEqual({ a: 1 });
    expect(payloadOf(['a'])).toEqual(['a']);
  });

  it('surfaces warnings of an envelope and none for null or other shapes', () => {
    const warned = envelope(null, { warnings: ['Endpoint ignored these unrecognized parameters: [foo]'] });
    expect(warningsOf(warned)).toEqual(['Endpoint ignored these unrecognized parameters: [foo]']);
    expect(warningsOf(envelope({}))).toEqual([]);
    expect(warningsOf(['a'])).toEqual([]);
  });

  it('reads errors of an error body and none from other bodies', () => {
    expect(errorsOf({ errors: ['permission denied', 'invalid token'] })).toEqual(['permission denied', 'invalid token']);
    expect(errorsOf({ errors: [] })).toEqual([]);
    expect(errorsOf('<html>')).toEqual([]);
  });

  it('shows an error entry that is not a string by its text leaves, without adding a level of JSON escaping', () => {
    const quoted = 'pa"ss\\word';
    expect(errorsOf({ errors: [{ field: 'password', got: quoted, code: 400 }, ['a', true]] })).toEqual([`field: password; got: ${quoted}; code: 400`, 'a; true']);
  });
});
