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

/** @internal (zod's types stay out of the public declarations) */
export const seedSchema = z
  .object({
    /**
     * Where the seed adds to the defaults (the dev-server command's `--seed`), true starts from this seed alone:
     * no `secret` mount, no directory.
     */
    replaceDefaults: z.boolean().optional(),
    mounts: z.array(mountSchema).optional(),
    kv: z.array(kvSecretSchema).optional(),
    directory: z.array(directoryEntrySchema).optional(),
    passwordPolicies: z.record(z.string(), passwordPolicySchema).optional(),
  })
  .strict();

/**
 * What the dev server starts with: mounts, KV secrets, directory entries and named password policies. Written
 * out (the build checks it against `seedSchema`) so that the public declarations do not name zod.
 */
export interface Seed {
  /**
   * Where the seed adds to the defaults (the dev-server command's `--seed`), true starts from this seed alone:
   * no `secret` mount, no directory.
   */
  replaceDefaults?: boolean;
  mounts?: Array<{
    path: string;
    type: 'kv' | 'kv-v2' | 'cloud' | 'ldap' | 'userpass';
    /** true for an auth method (`sys/auth`); implied by type `userpass`. */
    auth?: boolean;
    options?: Record<string, string>;
    description?: string;
  }>;
  kv?: Array<{ mount: string; path: string; data: Record<string, unknown> }>;
  directory?: Array<{ dn: string; attributes: Record<string, string | string[]> }>;
  passwordPolicies?: Record<string, { length: number; charset?: string }>;
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
/** @internal The schema and the type are one: the build fails when they disagree. */
export type SeedSchemaCheck = [Holds<Same<z.input<typeof seedSchema>, Seed>>, Holds<Same<z.infer<typeof seedSchema>, Seed>>];

/** Characters of a password policy without `charset`. */
export const DEFAULT_POLICY_CHARSET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export class SeedError extends Error {}

/**
 * Validates a seed; the error names the source, each bad entry by its index and identity, and the field
 * (`invalid seed file s.json: mounts[1] (path "kv"): type: Invalid option: ...`).
 */
export function parseSeed(input: unknown, source = 'seed'): Seed {
  const result = seedSchema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => describeIssue(input, issue.path, issue.message));
  throw new SeedError(`invalid ${source}: ${problems.join('; ')}`);
}

/** `<entry> (<its identity>): <field>: <message>`, the entry located in the raw input. */
function describeIssue(input: unknown, path: PropertyKey[], message: string): string {
  const [section, index, ...field] = path;
  if (typeof section !== 'string' || index === undefined) return `${formatPath(path)}: ${message}`;
  const entry = entryOf(input, section, index);
  const identity = entry === undefined ? '' : entryIdentity(section, entry);
  const where = `${section}${typeof index === 'number' ? `[${index}]` : `.${String(index)}`}${identity ? ` (${identity})` : ''}`;
  return field.length === 0 ? `${where}: ${message}` : `${where}: ${formatPath(field)}: ${message}`;
}

function entryOf(input: unknown, section: string, index: PropertyKey): unknown {
  if (typeof input !== 'object' || input === null) return undefined;
  const list = (input as Record<string, unknown>)[section];
  if (typeof list !== 'object' || list === null) return undefined;
  return (list as Record<PropertyKey, unknown>)[index];
}

/** What names an entry for a reader: a mount's path, a secret's mount/path, an entry's dn. */
function entryIdentity(section: string, entry: unknown): string {
  const field = (name: string): unknown => (typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>)[name] : undefined);
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? JSON.stringify(value) : undefined);
  if (section === 'mounts' && text(field('path'))) return `path ${text(field('path'))}`;
  if (section === 'kv' && text(field('mount')) && text(field('path'))) return `${String(field('mount'))}/${String(field('path'))}`;
  if (section === 'directory' && text(field('dn'))) return `dn ${text(field('dn'))}`;
  return '';
}

/**
 * The defaults a seed is added to: DEFAULT_SEED without the mounts and directory entries the seed declares
 * itself (same path, same dn: the seed's own wins), or nothing when the seed says `replaceDefaults`.
 */
export function defaultsBeneath(seed: Seed): Seed {
  if (seed.replaceDefaults) return {};
  const paths = new Set((seed.mounts ?? []).map((mount) => normalizeMountPath(mount.path)));
  const dns = new Set((seed.directory ?? []).map((entry) => entry.dn.toLowerCase().replace(/\s+/g, '')));
  return {
    ...DEFAULT_SEED,
    mounts: (DEFAULT_SEED.mounts ?? []).filter((mount) => !paths.has(normalizeMountPath(mount.path))),
    directory: (DEFAULT_SEED.directory ?? []).filter((entry) => !dns.has(entry.dn.toLowerCase().replace(/\s+/g, ''))),
  };
}

function normalizeMountPath(path: string): string {
  return path.replace(/^\/+|\/+$/g, '');
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
export function seedDirectoryEntries(seed: Seed): DirectoryEntry[] {
  return (seed.directory ?? []).map((entry) => {
    const attributes: Record<string, string[]> = {};
    for (const [name, value] of Object.entries(entry.attributes)) attributes[name] = Array.isArray(value) ? [...value] : [value];
    return { dn: entry.dn, attributes };
  });
}

export function seedPasswordPolicies(seed: Seed): Map<string, PasswordPolicy> {
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
