/**
 * The plan warning for a consequence that could not be counted. One function builds it so that a report that
 * already shows the reason at the resource (text, markdown) can recognise the warning exactly and shorten it,
 * while the plan's warnings (library callers, stderr beside a JSON report, saved plans) keep the reason.
 */
import type { UncountedConsequence } from '../../resources/types';

/** `prod/apps: could not count the secrets its delete takes with it on the service (<why>); review them by hand`. */
export function uncountedWarning(address: string, action: string, consequence: UncountedConsequence): string {
  return `${address}: could not count the ${consequence.what} its ${action} takes with it on the service (${consequence.uncounted}); review them by hand`;
}
