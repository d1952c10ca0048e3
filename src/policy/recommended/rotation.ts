/** How often credentials the service manages are rotated. */
import { definePolicy } from '../policy';
import { DAY, durationWords, effectiveSeconds, modelField, secretIsSet } from './model-facts';

const STATIC_ROLE = 'ldap_static_role';
const ROTATION_PERIOD = modelField(STATIC_ROLE, 'rotation_period');
const CLOUD_BACKEND = 'cloud_secret_backend';
const ROOT_PASSWORD_TTL = modelField(CLOUD_BACKEND, 'root_password_ttl');
const CLIENT_SECRET = modelField(CLOUD_BACKEND, 'client_secret');

export const ROTATION_PERIOD_LIMIT_SECONDS = 30 * DAY;
export const ROOT_PASSWORD_TTL_LIMIT_SECONDS = 90 * DAY;

export const ldapStaticRoleRotation = definePolicy({
  id: 'ldap-static-role-rotation',
  description: `Directory accounts managed as static roles are rotated at least every ${durationWords(ROTATION_PERIOD_LIMIT_SECONDS)} (monthly).`,
  enforcement: 'mandatory',
  resourceTypes: [STATIC_ROLE],
  check(resource) {
    if (resource.desired === null) return [];
    const period = effectiveSeconds(resource, ROTATION_PERIOD);
    return period > ROTATION_PERIOD_LIMIT_SECONDS
      ? [{ field: ROTATION_PERIOD.api, message: `rotates every ${durationWords(period)}, less often than every ${durationWords(ROTATION_PERIOD_LIMIT_SECONDS)}` }]
      : [];
  },
});

export const cloudRootPasswordTtl = definePolicy({
  id: 'cloud-root-password-ttl',
  description: `The cloud engine's root client secret expires within ${durationWords(ROOT_PASSWORD_TTL_LIMIT_SECONDS)} of a rotate-root (the service's default is about 6 months).`,
  enforcement: 'advisory',
  resourceTypes: [CLOUD_BACKEND],
  check(resource) {
    // Without a client secret (workload identity) there is no root password to expire.
    if (resource.desired === null || !secretIsSet(resource, CLIENT_SECRET)) return [];
    const ttl = effectiveSeconds(resource, ROOT_PASSWORD_TTL);
    return ttl === 0 || ttl > ROOT_PASSWORD_TTL_LIMIT_SECONDS
      ? [{ field: ROOT_PASSWORD_TTL.api, message: `${ttl === 0 ? 'never expires' : `valid for ${durationWords(ttl)}`}; set rootPasswordTtl to at most ${durationWords(ROOT_PASSWORD_TTL_LIMIT_SECONDS)}` }]
      : [];
  },
});
