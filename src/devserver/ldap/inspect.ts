import type { LdapState } from './state';

/** A plain snapshot of the engine's state for tests (bindpass and current passwords included). */
export function inspectLdapState(state: LdapState): unknown {
  return structuredClone({
    config: state.config ?? null,
    staticRoles: Object.fromEntries(state.staticRoles),
    dynamicRoles: Object.fromEntries(state.dynamicRoles),
    leases: Object.fromEntries(state.leases),
    librarySets: Object.fromEntries(state.librarySets),
    checkOuts: Object.fromEntries(state.checkOuts),
    backgroundErrors: state.backgroundErrors,
  });
}
