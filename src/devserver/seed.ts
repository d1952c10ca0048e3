import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { DirectoryEntry } from './directory/directory';
import type { PasswordPolicy } from './types';

const mountSchema = z
  .object({
    path: z.string().min(1),
    type: z.enum(['kv', 'kv-v2', 'cloud', 'ldap', 'userpass']),
    /** true for an auth method (`sys/auth`); implied by type `userpass`. */
    auth: z.boolean().optional(),
    options: z.record(z.string(), z.string()).optional(),
    description: z.string().optional(),
  })
  .strict();

const kvSecretSchema = z
  .object({
    mount: z.string().min(1),
    path: z.string().min(1),
    data: z.record(z.string(), z.unknown()),
  })
  .strict();

const directoryEntrySchema = z
  .object({
    dn: z.string().min(1),
    attributes: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  })
  .strict();

const passwordPolicySchema = z
  .object({
    length: z.number().int().min(1).max(1024),
    charset: z.string().min(1).optional(),
  })
  .strict();

export const seedSchema = z
  .object({
    mounts: z.array(mountSchema).optional(),
    kv: z.array(kvSecretSchema).optional(),
    directory: z.array(directoryEntrySchema).optional(),
    passwordPolicies: z.record(z.string(), passwordPolicySchema).optional(),
  })
  .strict();

/** What the dev server starts with: mounts, KV secrets, directory entries and named password policies. */
export type Seed = z.input<typeof seedSchema>;

/** Characters of a password policy without `charset`. */
export const DEFAULT_POLICY_CHARSET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export class SeedError extends Error {}

/** Validates a seed; the error names each bad field (`mounts[0].type: ...`). */
export function parseSeed(input: unknown, source = 'seed'): z.infer<typeof seedSchema> {
  const result = seedSchema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  throw new SeedError(`invalid ${source}: ${problems.join('; ')}`);
}

/** Reads and validates a seed JSON file. */
export function loadSeedFile(path: string): Seed {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SeedError(`cannot read seed file ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SeedError(`seed file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseSeed(json, `seed file ${path}`);
}

/** Directory entries of a seed, with single attribute values turned into lists. */
export function seedDirectoryEntries(seed: z.infer<typeof seedSchema>): DirectoryEntry[] {
  return (seed.directory ?? []).map((entry) => {
    const attributes: Record<string, string[]> = {};
    for (const [name, value] of Object.entries(entry.attributes)) attributes[name] = Array.isArray(value) ? [...value] : [value];
    return { dn: entry.dn, attributes };
  });
}

export function seedPasswordPolicies(seed: z.infer<typeof seedSchema>): Map<string, PasswordPolicy> {
  const policies = new Map<string, PasswordPolicy>();
  for (const [name, policy] of Object.entries(seed.passwordPolicies ?? {})) {
    policies.set(name, { length: policy.length, charset: policy.charset ?? DEFAULT_POLICY_CHARSET });
  }
  return policies;
}

function formatPath(path: PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path
    .map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`))
    .join('');
}

const BASE_DN = 'dc=example,dc=org';
const USERS = ['alice', 'bob', 'carol', 'dave'];
const SERVICE_ACCOUNTS = ['svc-app-1', 'svc-app-2', 'svc-app-3', 'svc-app-4', 'svc-app-5', 'svc-app-6'];

function capitalize(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/**
 * The seed used when none is given: a KV version 2 mount at `secret`, and a small directory under
 * `dc=example,dc=org` with an admin bind entry (`cn=admin,dc=example,dc=org` / `admin-password`), four users
 * (alice, bob, carol, dave; password `<name>-password`) and six service accounts (svc-app-1..6).
 */
export const DEFAULT_SEED: Seed = {
  mounts: [{ path: 'secret', type: 'kv', options: { version: '2' }, description: 'key/value secret storage' }],
  directory: [
    { dn: BASE_DN, attributes: { objectClass: ['top', 'dcObject', 'organization'], dc: 'example', o: 'Example' } },
    { dn: `ou=users,${BASE_DN}`, attributes: { objectClass: 'organizationalUnit', ou: 'users' } },
    { dn: `ou=service-accounts,${BASE_DN}`, attributes: { objectClass: 'organizationalUnit', ou: 'service-accounts' } },
    { dn: `ou=dynamic,${BASE_DN}`, attributes: { objectClass: 'organizationalUnit', ou: 'dynamic' } },
    {
      dn: `cn=admin,${BASE_DN}`,
      attributes: { objectClass: ['simpleSecurityObject', 'organizationalRole'], cn: 'admin', userPassword: 'admin-password' },
    },
    ...USERS.map((name) => ({
      dn: `cn=${name},ou=users,${BASE_DN}`,
      attributes: {
        objectClass: 'inetOrgPerson',
        cn: name,
        sn: capitalize(name),
        uid: name,
        userPassword: `${name}-password`,
        userPrincipalName: `${name}@example.org`,
        racfid: name.toUpperCase(),
      },
    })),
    ...SERVICE_ACCOUNTS.map((name) => ({
      dn: `cn=${name},ou=service-accounts,${BASE_DN}`,
      attributes: {
        objectClass: 'inetOrgPerson',
        cn: name,
        sn: name,
        uid: name,
        userPassword: `${name}-password`,
        userPrincipalName: `${name}@example.org`,
        racfid: name.toUpperCase().replace(/-/g, ''),
      },
    })),
  ],
};
