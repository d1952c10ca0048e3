/** The resource model: types, the registry, and the helpers the engine and reports share. */
export * from './types';
export * from './registry';
export { parseDuration, isDuration, durationProblem, MAX_DURATION_SECONDS } from './duration';
export { fieldValueProblems } from './field-rules';
export { isSafeApiPath, pathValueProblems, NAME_MAX_LENGTH } from './names';
export { canonicalValue, unwrapData, compareJson } from './define';
export { decodeLdif, canonicalLdif, ldifProblems } from './ldif';
export { templateProblems, LDIF_TEMPLATE, USERNAME_TEMPLATE, SECRET_NAME_TEMPLATE, TEMPLATE_RANDOM_MAX } from './template';
export { DESTINATION_TYPES, GRANULARITIES } from './sync-destination';
export { DEPLOYMENT_ENVIRONMENTS } from './sync-destination-webhost-project';
export { LDAP_SCHEMAS } from './ldap-secret-backend';
export { MINIMUM_ROTATION_PERIOD_SECONDS } from './ldap-static-role';
