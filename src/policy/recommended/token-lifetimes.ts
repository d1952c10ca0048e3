/** Login tokens of userpass users: short lifetimes, a hard maximum, bound to the networks they are used from. */
import { definePolicy } from '../policy';
import { boundedDurationViolations, DAY, durationWords, effectiveSeconds, effectiveValue, HOUR, modelField } from './model-facts';

const USER = 'userpass_user';
const TOKEN_TTL = modelField(USER, 'token_ttl');
const TOKEN_MAX_TTL = modelField(USER, 'token_max_ttl');
const TOKEN_BOUND_CIDRS = modelField(USER, 'token_bound_cidrs');
const TOKEN_PERIOD = modelField(USER, 'token_period');

export const TOKEN_TTL_LIMIT_SECONDS = 24 * HOUR;
export const TOKEN_MAX_TTL_LIMIT_SECONDS = 7 * DAY;

export const userpassTokenTtl = definePolicy({
  id: 'userpass-token-ttl',
  description: `Userpass users get tokens that live at most ${durationWords(TOKEN_TTL_LIMIT_SECONDS)}: a leaked token stops working soon (0 means the mount's default, 32 days unless tuned).`,
  enforcement: 'mandatory',
  resourceTypes: [USER],
  check: (resource) => boundedDurationViolations(resource, TOKEN_TTL, TOKEN_TTL_LIMIT_SECONDS, "not set (the mount's default applies)"),
});

export const userpassTokenMaxTtl = definePolicy({
  id: 'userpass-token-max-ttl',
  description: `Userpass users' tokens have a hard maximum lifetime of at most ${durationWords(TOKEN_MAX_TTL_LIMIT_SECONDS)}, so renewals cannot keep a token alive for the mount's 32-day default.`,
  enforcement: 'advisory',
  resourceTypes: [USER],
  check: (resource) => boundedDurationViolations(resource, TOKEN_MAX_TTL, TOKEN_MAX_TTL_LIMIT_SECONDS, "not set (the mount's default applies)"),
});

export const userpassTokenBoundCidrs = definePolicy({
  id: 'userpass-token-bound-cidrs',
  description: 'Userpass users\' tokens are bound to the networks they are used from (token_bound_cidrs), so a stolen token is useless elsewhere.',
  enforcement: 'advisory',
  resourceTypes: [USER],
  check(resource) {
    if (resource.desired === null) return [];
    const cidrs = effectiveValue(resource, TOKEN_BOUND_CIDRS);
    if (Array.isArray(cidrs) && cidrs.length > 0) return [];
    return [{ field: TOKEN_BOUND_CIDRS.api, message: 'tokens can be used from any address; set tokenBoundCidrs to the networks the user logs in from' }];
  },
});

export const userpassNoPeriodicTokens = definePolicy({
  id: 'userpass-no-periodic-tokens',
  description: 'Userpass users do not get periodic tokens: a periodic token renews forever and ignores every maximum lifetime.',
  enforcement: 'advisory',
  resourceTypes: [USER],
  check(resource) {
    if (resource.desired === null) return [];
    const period = effectiveSeconds(resource, TOKEN_PERIOD);
    return period > 0 ? [{ field: TOKEN_PERIOD.api, message: `tokens are periodic (${durationWords(period)}) and never reach a maximum lifetime; remove tokenPeriod` }] : [];
  },
});
