// Which redirects the client follows (redirects.ts) and which paths it refuses to send (request-path.ts).
import { MAX_REDIRECTS, decideRedirect } from '../../src/client/redirects';
import { encodePath, pathProblem } from '../../src/client/request-path';

const from = (url: string, status = 307, location?: string, visited: string[] = [url]) =>
  decideRedirect({ status, location, current: new URL(url), visited });

describe('decideRedirect', () => {
  it('follows 307/308 to the same origin and to https on the same host, on any port', () => {
    expect(from('http://svc:8200/v1/a', 307, '/v1/b')).toEqual({ follow: true, url: new URL('http://svc:8200/v1/b') });
    expect(from('http://svc:8200/v1/a', 308, 'https://svc/v1/a')).toEqual({ follow: true, url: new URL('https://svc/v1/a') });
    expect(from('https://svc:8200/v1/a', 308, 'https://svc:8200/v1/c')).toMatchObject({ follow: true });
  });

  it.each([
    [301, '/v1/b', 'HTTP 301 is not followed'],
    [302, '/v1/b', 'HTTP 302 is not followed'],
    [303, '/v1/b', 'HTTP 303 is not followed'],
    [300, '/v1/b', 'HTTP 300 is not followed'],
    [307, undefined, 'names no target'],
    [307, 'http://other:8200/v1/a', 'another server (http://other:8200)'],
    [307, 'http://svc:9000/v1/a', 'another server (http://svc:9000)'],
    [307, 'https://other/v1/a', 'another server (https://other)'],
    [307, 'ftp://svc/v1/a', 'the target uses ftp:'],
    [307, 'http://user:pw@svc:8200/v1/b', 'carries credentials'],
  ])('refuses %i to %j', (status, location, reason) => {
    const decision = from('http://svc:8200/v1/a', status, location);
    expect(decision.follow).toBe(false);
    if (!decision.follow) expect(decision.reason).toContain(reason);
  });

  it('refuses https to http, a loop, and more than MAX_REDIRECTS hops', () => {
    const down = from('https://svc/v1/a', 307, 'http://svc/v1/a');
    expect(!down.follow && down.reason).toContain('leaves https for plain http');
    const loop = from('http://svc/v1/b', 307, '/v1/a', ['http://svc/v1/a', 'http://svc/v1/b']);
    expect(!loop.follow && loop.reason).toContain('redirect loop');
    const hops = Array.from({ length: MAX_REDIRECTS + 1 }, (_, i) => `http://svc/v1/${i}`);
    const tooMany = from(hops[hops.length - 1], 307, '/v1/next', hops);
    expect(!tooMany.follow && tooMany.reason).toContain(`more than ${MAX_REDIRECTS} redirects`);
    expect(from(hops[hops.length - 2], 307, '/v1/next', hops.slice(0, -1)).follow).toBe(true);
  });
});

describe('pathProblem and encodePath', () => {
  it.each([
    ['ldap/role/..', 'dot segment ".."'],
    ['../sys', 'dot segment ".."'],
    ['a/./b', 'dot segment "."'],
    ['a//b', 'empty segment'],
    ['a/%2e%2E/b', 'encoded dot segment'],
    ['a/.%2e', 'encoded dot segment'],
    ['a/b\r', 'control character'],
    ['a/\u0085', 'control character'],
    ['a/\ud800', 'lone surrogate'],
    ['/', 'is empty'],
  ])('refuses %j', (path, reason) => {
    expect(pathProblem(path)).toContain(reason);
  });

  it('accepts names with dots inside, a trailing folder "/", and encodes each segment', () => {
    for (const path of ['ldap/role/a..b', 'kv/data/.hidden', 'ldap/static-role/team/', 'sys/sync/destinations/aws-sm/x']) expect(pathProblem(path)).toBeUndefined();
    expect(encodePath('/kv/data/a b/%2f?/ü')).toBe('kv/data/a%20b/%252f%3F/%C3%BC');
  });
});
