/** Directory library sets: bounded check-outs, and only the borrower checks an account back in. */
import { definePolicy } from '../policy';
import { boundedDurationViolations, durationWords, effectiveValue, HOUR, modelField } from './model-facts';

const LIBRARY = 'ldap_library_set';
const MAX_TTL = modelField(LIBRARY, 'max_ttl');
const DISABLE_CHECK_IN_ENFORCEMENT = modelField(LIBRARY, 'disable_check_in_enforcement');

export const CHECK_OUT_LIMIT_SECONDS = 24 * HOUR;

export const ldapLibraryCheckOutLimit = definePolicy({
  id: 'ldap-library-check-out-limit',
  description: `A library account is checked out for at most ${durationWords(CHECK_OUT_LIMIT_SECONDS)} including renewals, so a borrowed password cannot be kept indefinitely.`,
  enforcement: 'mandatory',
  resourceTypes: [LIBRARY],
  check: (resource) => boundedDurationViolations(resource, MAX_TTL, CHECK_OUT_LIMIT_SECONDS, '0 means check-outs never end'),
});

export const ldapLibraryCheckInEnforcement = definePolicy({
  id: 'ldap-library-check-in-enforcement',
  description: 'Only the borrower of a library account can check it back in (check-in enforcement stays on), so nobody ends another\'s check-out.',
  enforcement: 'mandatory',
  resourceTypes: [LIBRARY],
  check(resource) {
    if (resource.desired === null) return [];
    return effectiveValue(resource, DISABLE_CHECK_IN_ENFORCEMENT) === true
      ? [{ field: DISABLE_CHECK_IN_ENFORCEMENT.api, message: 'anyone can check accounts in; remove disableCheckInEnforcement' }]
      : [];
  },
});
