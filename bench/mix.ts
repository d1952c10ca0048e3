/**
 * The bench stack: `size` resources of mixed types in the proportions of a real platform (users, directory
 * roles, cloud roles, sync destinations and associations, plus the mounts and configurations they live in),
 * every user with a password of its own, and the dev server seed they need.
 */
import type { Seed } from '../src/devserver';

export const DOMAIN = 'dc=bench,dc=org';

export interface Mix {
  users: number;
  staticRoles: number;
  dynamicRoles: number;
  librarySets: number;
  cloudRoles: number;
  destinationsPerType: number;
  associations: number;
}

/** Per 1,000 resources (with the 5 mounts and configurations, 1,005). */
const PER_THOUSAND: Mix = { users: 300, staticRoles: 180, dynamicRoles: 100, librarySets: 45, cloudRoles: 150, destinationsPerType: 10, associations: 170 };

export function mixFor(size: number): Mix {
  const scale = size / 1000;
  const entries = Object.entries(PER_THOUSAND).map(([name, count]): [string, number] => [name, Math.max(1, Math.round(count * scale))]);
  return Object.fromEntries(entries) as unknown as Mix;
}

/** The secrets the stack reads from the environment: one password per user, and the backends' credentials. */
export function secretEnv(size: number): Record<string, string> {
  const mix = mixFor(size);
  return {
    BENCH_SECRET_0: 'bench-bind-password',
    BENCH_SECRET_1: 'bench-client-secret',
    BENCH_SECRET_2: 'AKIABENCH',
    BENCH_SECRET_3: 'bench-secret-key',
    BENCH_SECRET_4: 'bench-kv-secret',
    BENCH_SECRET_5: '{"type":"service_account"}',
    BENCH_SECRET_6: 'bench-repo-token',
    BENCH_SECRET_7: 'bench-web-token',
    ...Object.fromEntries(Array.from({ length: mix.users }, (_, i) => [`BENCH_PASSWORD_${i}`, `password-of-user-${i}-${(i * 2654435761) % 1000003}`])),
  };
}

/**
 * What the platform already has: the directory's entries, the KV v2 secrets the associations sync, and the
 * service's usual KV v2 mount `secret/` (where secretform keeps the stack's fingerprint key by default).
 */
export function seedFor(size: number, options: { secretMount?: boolean } = {}): Seed {
  const mix = mixFor(size);
  const accounts = mix.staticRoles + mix.librarySets;
  return {
    mounts: [
      // A production server has no `secret/` unless someone made it (the PostgreSQL row measures that case).
      ...(options.secretMount === false ? [] : [{ path: 'secret', type: 'kv' as const, options: { version: '2' } }]),
      { path: 'kv', type: 'kv', options: { version: '2' } },
    ],
    kv: Array.from({ length: mix.associations }, (_, i) => ({ mount: 'kv', path: `app-${i}`, data: { value: `v${i}` } })),
    directory: [
      { dn: DOMAIN, attributes: { objectClass: ['domain'], dc: ['bench'] } },
      { dn: `cn=admin,${DOMAIN}`, attributes: { objectClass: ['person'], cn: ['admin'], sn: ['admin'], userPassword: ['bench-bind-password'] } },
      { dn: `ou=users,${DOMAIN}`, attributes: { objectClass: ['organizationalUnit'], ou: ['users'] } },
      { dn: `ou=dynamic,${DOMAIN}`, attributes: { objectClass: ['organizationalUnit'], ou: ['dynamic'] } },
      ...Array.from({ length: accounts }, (_, i) => ({
        dn: `cn=account-${i},ou=users,${DOMAIN}`,
        attributes: { objectClass: ['person'], cn: [`account-${i}`], sn: ['bench'], userPassword: [`initial-${i}`] },
      })),
    ],
  };
}
