/**
 * The built-in `recommended` pack (`--policy recommended`): rules a security reviewer of this service would
 * sign, each with an id, a one-line rationale (its description) and a default enforcement. docs/policies.md
 * documents each one.
 */
import type { Policy } from '../policy';
import { noDeprecatedFields } from './deprecated-fields';
import { ldapTls, ldapTlsVerified } from './directory-tls';
import { ldapLibraryCheckInEnforcement, ldapLibraryCheckOutLimit } from './library';
import { cloudRootPasswordTtl, ldapStaticRoleRotation } from './rotation';
import { cloud1DestinationRole, cloud2DestinationClientSecret, cloudBackendWorkloadIdentity, repohostDestinationApp } from './static-credentials';
import { syncEnabled } from './sync';
import { userpassNoPeriodicTokens, userpassTokenBoundCidrs, userpassTokenMaxTtl, userpassTokenTtl } from './token-lifetimes';

export const RECOMMENDED_PACK = 'recommended';

export const RECOMMENDED_POLICIES: readonly Policy[] = Object.freeze([
  userpassTokenTtl,
  userpassTokenMaxTtl,
  userpassTokenBoundCidrs,
  userpassNoPeriodicTokens,
  ldapStaticRoleRotation,
  cloudRootPasswordTtl,
  ldapLibraryCheckOutLimit,
  ldapLibraryCheckInEnforcement,
  ldapTls,
  ldapTlsVerified,
  repohostDestinationApp,
  cloud1DestinationRole,
  cloud2DestinationClientSecret,
  cloudBackendWorkloadIdentity,
  noDeprecatedFields,
  syncEnabled,
]);
