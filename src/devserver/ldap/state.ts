import { DueSchedule } from '../due-schedule';
import type { MountEntry, ServerContext } from '../types';

export type DirectorySchema = 'openldap' | 'ad' | 'racf';

/** The stored engine configuration (`<mount>/config`), bindpass included. */
export interface LdapConfig {
  binddn: string;
  bindpass: string;
  url: string;
  passwordPolicy?: string;
  length?: number;
  schema: DirectorySchema;
  userdn: string;
  /** Only when written; reads fall back to the schema's attribute. */
  userattr?: string;
  upndomain: string;
  requestTimeoutSeconds: number;
  connectionTimeoutSeconds: number;
  starttls: boolean;
  insecureTls: boolean;
  certificate: string;
  clientTlsCert: string;
  clientTlsKey: string;
  skipStaticRoleImportRotation: boolean;
}

export interface StaticRole {
  name: string;
  username: string;
  /** The DN given on creation ('' when the entry was found by username). */
  dn: string;
  /** The entry the role manages (the given DN or the one the search found). */
  entryDn: string;
  rotationPeriodSeconds: number;
  password: string;
  lastPassword: string;
  /** Epoch ms of the last rotation by the service; undefined until the first one. */
  lastRotationMs?: number;
  /** Epoch ms at which the next rotation is due. */
  nextRotationMs: number;
  /** The last failed rotation attempt, kept for inspection (a rotation in tick cannot report it). */
  lastRotationError?: string;
}

export interface DynamicRole {
  name: string;
  creationLdif: string;
  deletionLdif: string;
  rollbackLdif: string;
  usernameTemplate: string;
  defaultTtlSeconds: number;
  maxTtlSeconds: number;
}

/** Credentials issued from a dynamic role; the deletion LDIF was rendered when they were issued. */
export interface DynamicLease {
  leaseId: string;
  roleName: string;
  username: string;
  distinguishedNames: string[];
  renderedDeletionLdif: string;
  issuedMs: number;
  expiresMs: number;
}

export interface LibrarySet {
  name: string;
  serviceAccountNames: string[];
  ttlSeconds: number;
  maxTtlSeconds: number;
  disableCheckInEnforcement: boolean;
}

export interface CheckOut {
  account: string;
  setName: string;
  leaseId: string;
  borrowerClientToken: string;
  borrowerEntityId: string;
  checkedOutMs: number;
  /** undefined for an unlimited check-out. */
  expiresMs?: number;
}

export interface LdapState {
  config?: LdapConfig;
  staticRoles: Map<string, StaticRole>;
  dynamicRoles: Map<string, DynamicRole>;
  leases: Map<string, DynamicLease>;
  librarySets: Map<string, LibrarySet>;
  /** The set each service account belongs to, kept in step with `librarySets` (at most one set per account). */
  accountOwners: Map<string, string>;
  /** Keyed by service account name (an account belongs to at most one set). */
  checkOuts: Map<string, CheckOut>;
  /** When the tick has work: role names by `nextRotationMs`, lease ids and accounts by `expiresMs`. */
  rotationsDue: DueSchedule<string>;
  leaseExpiries: DueSchedule<string>;
  checkOutExpiries: DueSchedule<string>;
  /** Errors of work done in tick (rotations, deletions, check-ins), newest last, for inspection. */
  backgroundErrors: string[];
}

/** One mounted directory engine: where it is mounted, the server it lives in, and its state. */
export interface LdapEngine {
  mount: MountEntry;
  ctx: ServerContext;
  state: LdapState;
}

export function emptyLdapState(): LdapState {
  return {
    staticRoles: new Map(),
    dynamicRoles: new Map(),
    leases: new Map(),
    librarySets: new Map(),
    accountOwners: new Map(),
    checkOuts: new Map(),
    rotationsDue: new DueSchedule(),
    leaseExpiries: new DueSchedule(),
    checkOutExpiries: new DueSchedule(),
    backgroundErrors: [],
  };
}

/** Keeps the background error log bounded. */
export function recordBackgroundError(state: LdapState, message: string): void {
  state.backgroundErrors.push(message);
  if (state.backgroundErrors.length > 100) state.backgroundErrors.shift();
}

/** Go's zero time, which the service reports for a timestamp that was never set. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

export const rfc3339 = (ms: number): string => new Date(ms).toISOString();
