import { randomBytes, randomUUID } from 'node:crypto';
import { addressInCidrs, parseCidr, type CidrBlock } from './cidr';
import type { IssueTokenInput, TokenInfo, TokenStore } from './types';

/** Lifetime of a token issued with ttl 0: the service's default system max TTL (768h). */
export const DEFAULT_TOKEN_TTL_SECONDS = 768 * 3600;

/** Why a presented token was refused (the core turns every reason into a 403). */
export type TokenCheck =
  | { ok: true; token: TokenInfo }
  | { ok: false; reason: 'missing' | 'invalid' | 'cidr' };

/**
 * The tokens the dev server knows: the root token given at start and the tokens issued by logins.
 * Expired and used-up tokens are forgotten when next looked up.
 */
export class InMemoryTokenStore implements TokenStore {
  private readonly tokens = new Map<string, TokenInfo>();

  constructor(
    rootToken: string,
    private readonly now: () => number,
  ) {
    this.tokens.set(rootToken, {
      id: rootToken,
      accessor: randomToken(24),
      policies: ['root'],
      root: true,
      entityId: '',
      displayName: 'root',
      tokenType: 'service',
      metadata: {},
    });
  }

  issue(input: IssueTokenInput): TokenInfo {
    if (!Number.isInteger(input.ttlSeconds) || input.ttlSeconds < 0) {
      throw new Error(`TokenStore.issue: ttlSeconds must be an integer >= 0, got ${input.ttlSeconds}`);
    }
    for (const cidr of input.boundCidrs ?? []) cidrBlock(cidr);
    const ttlSeconds = input.ttlSeconds === 0 ? DEFAULT_TOKEN_TTL_SECONDS : input.ttlSeconds;
    const token: TokenInfo = {
      id: `svc.${randomToken(24)}`,
      accessor: randomToken(24),
      policies: [...input.policies],
      root: false,
      entityId: input.entityId ?? randomUUID(),
      displayName: input.displayName,
      expiresAt: this.now() + ttlSeconds * 1000,
      numUsesLeft: input.numUses && input.numUses > 0 ? input.numUses : undefined,
      boundCidrs: input.boundCidrs && input.boundCidrs.length > 0 ? [...input.boundCidrs] : undefined,
      tokenType: input.tokenType,
      metadata: { ...input.metadata },
    };
    this.tokens.set(token.id, token);
    return { ...token };
  }

  /** The live token with this id (a copy), without using it up. */
  lookup(id: string): TokenInfo | undefined {
    const token = this.tokens.get(id);
    if (!token) return undefined;
    if (token.expiresAt !== undefined && token.expiresAt <= this.now()) {
      this.tokens.delete(id);
      return undefined;
    }
    return { ...token };
  }

  /** Authenticates one request: the token must exist, be live, and be used from an allowed address. Counts a use. */
  authenticate(id: string | undefined, remoteAddress: string): TokenCheck {
    if (id === undefined || id === '') return { ok: false, reason: 'missing' };
    const token = this.lookup(id);
    if (!token) return { ok: false, reason: 'invalid' };
    if (token.boundCidrs && !addressInCidrs(remoteAddress, token.boundCidrs.map(cidrBlock))) {
      return { ok: false, reason: 'cidr' };
    }
    const stored = this.tokens.get(id)!;
    if (stored.numUsesLeft !== undefined) {
      stored.numUsesLeft -= 1;
      // The last use is allowed; the token is gone afterwards.
      if (stored.numUsesLeft <= 0) this.tokens.delete(id);
    }
    return { ok: true, token };
  }
}

function randomToken(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += alphabet[byte % alphabet.length];
  return out;
}

/** A bound CIDR of a token (userpass checks its users' CIDRs on write, so a bad one here is a programming error). */
function cidrBlock(cidr: string): CidrBlock {
  const block = parseCidr(cidr);
  if (!block) throw new Error(`invalid CIDR "${cidr}"`);
  return block;
}
