import { addressInCidrs } from '../cidr';
import { badRequest, okEnvelope } from '../respond';
import type { DevRequest, DevResponse, TokenStore } from '../types';
import { optionalString } from '../body-fields';
import { sanitizePolicies } from './fields';
import { passwordMatches, type UserEntry } from './user';

/** The token store's default and maximum lifetime (768h), used when the user sets no `token_ttl`. */
export const DEFAULT_TOKEN_TTL_SECONDS = 2_764_800;

const INVALID_CREDENTIALS = 'invalid username or password';

/**
 * `POST login/:u`: checks the password and the bound CIDRs, then issues a token carrying the user's policies.
 * `entityIdFor` gives the user's identity entity (stable across logins, as the service keeps one per alias).
 */
export async function login(
  req: DevRequest,
  username: string,
  user: UserEntry | undefined,
  tokens: TokenStore,
  entityIdFor: (username: string) => string,
): Promise<DevResponse> {
  const password = optionalString(req.body, 'password');
  if (!password) throw badRequest('missing password');
  if (!user || !(await passwordMatches(password, user.passwordHash))) throw badRequest(INVALID_CREDENTIALS);
  if (user.tokenBoundCidrs.length > 0 && !addressInCidrs(req.remoteAddress, user.tokenBoundCidrs)) {
    throw badRequest('login request originated from invalid CIDR');
  }

  const policies = sanitizePolicies(user.tokenNoDefaultPolicy ? user.tokenPolicies : [...user.tokenPolicies, 'default']);
  const tokenType = user.tokenType === 'batch' ? 'batch' : 'service';
  const leaseDuration = tokenLifetimeSeconds(user);
  const entityId = entityIdFor(username);
  const metadata = { username };
  const token = tokens.issue({
    policies,
    displayName: `userpass-${username}`,
    entityId,
    ttlSeconds: leaseDuration,
    numUses: user.tokenNumUses,
    boundCidrs: user.tokenBoundCidrs.map((block) => block.text),
    tokenType,
    metadata,
  });
  return okEnvelope(null, {
    auth: {
      client_token: token.id,
      accessor: token.accessor,
      // The service reports the token's policies (with `default`) under both names; identity policies would
      // add to `policies` only, and the emulator has none.
      policies,
      token_policies: policies,
      metadata,
      lease_duration: leaseDuration,
      renewable: tokenType === 'service',
      entity_id: entityId,
      token_type: tokenType,
      orphan: true,
      mfa_requirement: null,
      num_uses: user.tokenNumUses,
    },
  });
}

/** The issued token's lifetime: the period for periodic tokens, else token_ttl (or the default) within the caps. */
export function tokenLifetimeSeconds(user: UserEntry): number {
  let seconds = user.tokenPeriodSeconds > 0 ? user.tokenPeriodSeconds : user.tokenTtlSeconds || DEFAULT_TOKEN_TTL_SECONDS;
  if (user.tokenPeriodSeconds === 0) {
    if (user.tokenMaxTtlSeconds > 0) seconds = Math.min(seconds, user.tokenMaxTtlSeconds);
    seconds = Math.min(seconds, DEFAULT_TOKEN_TTL_SECONDS);
  }
  if (user.tokenExplicitMaxTtlSeconds > 0) seconds = Math.min(seconds, user.tokenExplicitMaxTtlSeconds);
  return seconds;
}
