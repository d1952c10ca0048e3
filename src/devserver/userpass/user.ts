import bcrypt from 'bcryptjs';
import type { CidrBlock } from '../cidr';
import { optionalDurationSeconds } from '../duration';
import { badRequest } from '../respond';
import { optionalBool, optionalInt, optionalString, optionalStringList } from '../body-fields';
import { optionalCidrList, sanitizePolicies } from './fields';

/** A low bcrypt cost: this is an emulator, and tests log in often. Real servers use cost 10. */
const BCRYPT_COST = 4;

/** bcrypt's modular crypt format: `$2a$`, `$2b$` or `$2y$`, a two-digit cost, then 53 characters of salt+hash. */
const BCRYPT_HASH = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;

export type UserTokenType = 'service' | 'batch' | 'default';

/** A stored user. Passwords exist only as bcrypt hashes. */
export interface UserEntry {
  passwordHash: string;
  tokenTtlSeconds: number;
  tokenMaxTtlSeconds: number;
  tokenExplicitMaxTtlSeconds: number;
  tokenPeriodSeconds: number;
  tokenPolicies: string[];
  /** Deprecated `policies`: undefined when never set, or cleared by a later `token_policies` write. */
  legacyPolicies?: string[];
  tokenBoundCidrs: CidrBlock[];
  tokenNoDefaultPolicy: boolean;
  tokenNumUses: number;
  tokenType: UserTokenType;
}

export async function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, BCRYPT_COST);
}

export async function passwordMatches(password: string, passwordHash: string): Promise<boolean> {
  return bcrypt.compare(password, passwordHash);
}

/**
 * Applies a `POST users/:u` body to the stored user (undefined when creating). Fields that are not sent keep
 * their value (the service's update is partial). Returns the new entry; throws a 400 on invalid input.
 */
export async function applyUserWrite(existing: UserEntry | undefined, body: Record<string, unknown>): Promise<UserEntry> {
  // An empty string counts as "not sent", as in the service.
  const password = optionalString(body, 'password') || undefined;
  const passwordHash = optionalString(body, 'password_hash') || undefined;
  if (password !== undefined && passwordHash !== undefined) {
    throw badRequest('only one of "password" or "password_hash" can be provided');
  }
  if (existing === undefined && password === undefined && passwordHash === undefined) throw badRequest('missing password');
  if (passwordHash !== undefined && !BCRYPT_HASH.test(passwordHash)) {
    throw badRequest('invalid "password_hash": expected a bcrypt hash ($2a$, $2b$ or $2y$, cost, 53 characters)');
  }

  const entry: UserEntry = existing
    ? { ...existing }
    : {
        passwordHash: '',
        tokenTtlSeconds: 0,
        tokenMaxTtlSeconds: 0,
        tokenExplicitMaxTtlSeconds: 0,
        tokenPeriodSeconds: 0,
        tokenPolicies: [],
        tokenBoundCidrs: [],
        tokenNoDefaultPolicy: false,
        tokenNumUses: 0,
        tokenType: 'default',
      };

  if (password !== undefined) entry.passwordHash = await hashPassword(password);
  if (passwordHash !== undefined) entry.passwordHash = passwordHash;

  entry.tokenTtlSeconds = optionalDurationSeconds(body.token_ttl, 'token_ttl') ?? entry.tokenTtlSeconds;
  entry.tokenMaxTtlSeconds = optionalDurationSeconds(body.token_max_ttl, 'token_max_ttl') ?? entry.tokenMaxTtlSeconds;
  entry.tokenExplicitMaxTtlSeconds =
    optionalDurationSeconds(body.token_explicit_max_ttl, 'token_explicit_max_ttl') ?? entry.tokenExplicitMaxTtlSeconds;
  entry.tokenPeriodSeconds = optionalDurationSeconds(body.token_period, 'token_period') ?? entry.tokenPeriodSeconds;
  entry.tokenBoundCidrs = optionalCidrList(body, 'token_bound_cidrs') ?? entry.tokenBoundCidrs;
  entry.tokenNoDefaultPolicy = optionalBool(body, 'token_no_default_policy') ?? entry.tokenNoDefaultPolicy;
  entry.tokenNumUses = optionalInt(body, 'token_num_uses') ?? entry.tokenNumUses;
  entry.tokenType = readTokenType(body) ?? entry.tokenType;
  applyPolicies(entry, body);

  validateTokenSettings(entry);
  return entry;
}

/**
 * `policies` is the deprecated spelling of `token_policies`. Like the service's upgrade rule: `policies`
 * alone sets both; `token_policies` sets the new field and clears the legacy one, unless both are sent, in
 * which case the legacy one takes the new value. The legacy field is shown on read only while it is set.
 */
export function applyPolicies(entry: UserEntry, body: Record<string, unknown>): void {
  const tokenPolicies = optionalStringList(body, 'token_policies');
  const legacyPolicies = optionalStringList(body, 'policies');
  if (tokenPolicies !== undefined) {
    entry.tokenPolicies = sanitizePolicies(tokenPolicies);
    entry.legacyPolicies = legacyPolicies !== undefined ? entry.tokenPolicies : undefined;
  } else if (legacyPolicies !== undefined) {
    entry.tokenPolicies = sanitizePolicies(legacyPolicies);
    entry.legacyPolicies = entry.tokenPolicies;
  }
}

function readTokenType(body: Record<string, unknown>): UserTokenType | undefined {
  const value = optionalString(body, 'token_type');
  if (value === undefined) return undefined;
  if (value === '') return 'default';
  if (value === 'service' || value === 'batch' || value === 'default') return value;
  throw badRequest(`invalid "token_type" value ${JSON.stringify(value)}: allowed are service, batch, default`);
}

function validateTokenSettings(entry: UserEntry): void {
  if (entry.tokenNumUses < 0) throw badRequest('"token_num_uses" cannot be negative');
  if (entry.tokenMaxTtlSeconds > 0 && entry.tokenTtlSeconds > entry.tokenMaxTtlSeconds) {
    throw badRequest('"token_ttl" cannot be greater than "token_max_ttl"');
  }
  if (entry.tokenType === 'batch' && entry.tokenPeriodSeconds > 0) {
    throw badRequest('"token_type" cannot be "batch" when set to generate periodic tokens');
  }
  if (entry.tokenType === 'batch' && entry.tokenNumUses > 0) {
    throw badRequest('"token_type" cannot be "batch" when set to generate tokens with limited use count');
  }
}

/** The read-user output: exactly the token fields (durations as int seconds), plus legacy `policies` when set. */
export function userReadData(entry: UserEntry): Record<string, unknown> {
  const data: Record<string, unknown> = {
    token_bound_cidrs: entry.tokenBoundCidrs.map((block) => block.text),
    token_explicit_max_ttl: entry.tokenExplicitMaxTtlSeconds,
    token_max_ttl: entry.tokenMaxTtlSeconds,
    token_no_default_policy: entry.tokenNoDefaultPolicy,
    token_num_uses: entry.tokenNumUses,
    token_period: entry.tokenPeriodSeconds,
    token_policies: entry.tokenPolicies,
    token_ttl: entry.tokenTtlSeconds,
    token_type: entry.tokenType,
  };
  if (entry.legacyPolicies !== undefined && entry.legacyPolicies.length > 0) data.policies = entry.tokenPolicies;
  return data;
}
