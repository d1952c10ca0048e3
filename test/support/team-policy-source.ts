/**
 * The team's mandatory rule that the policy e2e tests put in the packs they write, as module source: an entry of
 * a pack's list, with `definePolicy` in scope, valid in a JS pack as in a TS one. A userpass user's tokens live
 * at most a day (`team-short-ttl`); a user with no TTL passes (the rule judges only what the code sets).
 */
export const TEAM_SHORT_TTL_POLICY = `definePolicy({
    id: 'team-short-ttl',
    description: 'Tokens of userpass users live at most a day.',
    enforcement: 'mandatory',
    resourceTypes: ['userpass_user'],
    check(resource) {
      const ttl = resource.desired?.token_ttl;
      return typeof ttl === 'number' && ttl > 86400 ? [{ field: 'token_ttl', message: ttl + 's is longer than a day' }] : [];
    },
  })`;
