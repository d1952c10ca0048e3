// Shared setup for the directory engine's HTTP-level tests: a dev server on a manual clock, a directory
// subtree of our own, the engine mounted at `ldap`, and login tokens for the non-root paths.
import { ManualClock } from '../../src/devserver/clock';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from './http';

export const BASE_DN = 'dc=ldaptest,dc=net';
export const USERS_DN = `ou=users,${BASE_DN}`;
export const ADMIN_DN = `cn=admin,${BASE_DN}`;
export const ADMIN_PASSWORD = 'admin-pass';
export const ROOT_TOKEN = 'ldap-test-root';
/** A seeded password policy: 12 digits. */
export const DIGITS_POLICY = 'digits';
export const START_MS = Date.UTC(2025, 0, 1);

export interface LdapFixture {
  server: DevServer;
  clock: ManualClock;
  /** A request with the root token unless another token is given ('' sends none); test/devserver/http.ts `call`. */
  request(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/** Accounts created under USERS_DN (cn = name, userPassword = `<name>-initial`). */
export const ACCOUNTS = ['alice', 'bob', 'carol', 'dave', 'erin'];

export async function startLdapFixture(): Promise<LdapFixture> {
  const clock = new ManualClock(START_MS);
  const directory: { dn: string; attributes: Record<string, string[]> }[] = [
    { dn: BASE_DN, attributes: { objectClass: ['domain'], dc: ['ldaptest'] } },
    { dn: USERS_DN, attributes: { objectClass: ['organizationalUnit'], ou: ['users'] } },
    { dn: ADMIN_DN, attributes: { objectClass: ['person'], cn: ['admin'], sn: ['admin'], userPassword: [ADMIN_PASSWORD] } },
    ...ACCOUNTS.map((name) => ({
      dn: accountDn(name),
      attributes: { objectClass: ['person'], cn: [name], sn: [name], userPassword: [`${name}-initial`] },
    })),
  ];
  const server = await startDevServer({
    port: 0,
    rootToken: ROOT_TOKEN,
    clock,
    seed: { directory, passwordPolicies: { [DIGITS_POLICY]: { length: 12, charset: '0123456789' } } },
  });
  const request = async (method: string, path: string, body?: unknown, token: string = ROOT_TOKEN) => {
    const reply = await call(server, method, path, body, token === '' ? null : token);
    return { status: reply.status, body: reply.body };
  };
  const mounted = await request('POST', 'sys/mounts/ldap', { type: 'ldap' });
  if (mounted.status !== 204 && mounted.status !== 200) {
    throw new Error(`mounting the directory engine failed: ${mounted.status} ${JSON.stringify(mounted.body)}`);
  }
  return { server, clock, request, close: () => server.close() };
}

/** Writes the engine config binding as ADMIN_DN, searching accounts under USERS_DN. */
export async function configure(fixture: LdapFixture, extra: Record<string, unknown> = {}): Promise<void> {
  const written = await fixture.request('POST', 'ldap/config', {
    binddn: ADMIN_DN,
    bindpass: ADMIN_PASSWORD,
    userdn: USERS_DN,
    ...extra,
  });
  if (written.status !== 204) throw new Error(`config write failed: ${written.status} ${JSON.stringify(written.body)}`);
}

/** A login token (non-root) from a userpass user created for the test. */
export async function loginToken(fixture: LdapFixture, username: string): Promise<string> {
  const enabled = await fixture.request('POST', 'sys/auth/userpass', { type: 'userpass' });
  if (enabled.status !== 204 && enabled.status !== 200 && enabled.status !== 400) {
    throw new Error(`enabling userpass failed: ${enabled.status} ${JSON.stringify(enabled.body)}`);
  }
  const user = await fixture.request('POST', `auth/userpass/users/${username}`, { password: 'pw', token_policies: 'default' });
  if (user.status !== 204) throw new Error(`user write failed: ${user.status} ${JSON.stringify(user.body)}`);
  const login = await fixture.request('POST', `auth/userpass/login/${username}`, { password: 'pw' }, '');
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
  return login.body.auth.client_token as string;
}

export const entryPassword = (fixture: LdapFixture, dn: string): string | undefined => fixture.server.directory.password(dn);
export const accountDn = (name: string): string => `cn=${name},${USERS_DN}`;

/** The 500 body the engine returns for a plain error. */
export const multiErrorBody = (message: string) => ({ errors: [`1 error occurred:\n\t* ${message}\n\n`] });

