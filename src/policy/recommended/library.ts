/** Directory library sets: bounded check-outs, and only the borrower checks an account back in. */
import { definePolicy } from '../policy';
import { durationWords, effectiveSeconds, effectiveValue, HOUR, modelField } from './model-facts';

const LIBRARY = 'ldap_library_set';
const MAX_TTL = modelField(LIBRARY, 'max_ttl');
const DISABLE_CHECK_IN_ENFORCEMENT = modelField(LIBRARY, 'disable_check_in_enforcement');

export const CHECK_OUT_LIMIT_SECONDS = 24 * HOUR;

export const ldapLibraryCheckOutLimit = definePolicy({
  id: 'ldap-library-check-out-limit',
  description: `A library account is checked out for at most ${durationWords(CHECK_OUT_LIMIT_SECONDS)} including renewals, so a borrowed password cannot be kept indefinitely.`,
  enforcement: 'mandatory',
  resourceTypes: [LIBRARY],
  check(resource) {
    if (resource.desired === null) return [];
    const max = effectiveSeconds(resource, MAX_TTL);
    if (max === 0) return [{ field: MAX_TTL.api, message: `0 means check-outs never end; set maxTtl to at most ${durationWords(CHECK_OUT_LIMIT_SECONDS)}` }];
    if (max > CHECK_OUT_LIMIT_SECONDS) return [{ field: MAX_TTL.api, message: `${durationWords(max)} is longer than ${durationWords(CHECK_OUT_LIMIT_SECONDS)}` }];
    return [];
  },
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
