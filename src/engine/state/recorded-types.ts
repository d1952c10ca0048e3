/**
 * Every entry of a state names a resource type this secretform knows. A state written by a newer version, or
 * edited by hand, may not: such an entry is reported with its address and where the state is, before any
 * request, instead of failing deep inside the refresh with a message that names neither.
 */
import { RESOURCE_TYPES, findResourceType } from '../../resources/registry';
import { EngineError } from '../errors';
import type { ResourceState, StateFile } from './state-file';
import type { StateLocation } from './state-location';

export function unknownRecordedTypes(state: StateFile, location: StateLocation, addresses?: ReadonlySet<string>): EngineError | undefined {
  // A loop, not Object.entries and a filter: a state of 10,000 entries has none to report, usually.
  const unknown: [string, ResourceState][] = [];
  for (const address in state.resources) {
    const entry = state.resources[address];
    if ((addresses === undefined || addresses.has(address)) && findResourceType(entry.type) === undefined) unknown.push([address, entry]);
  }
  unknown.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (unknown.length === 0) return undefined;
  const lines = unknown.map(([address, entry]) => `${address}: unknown resource type ${JSON.stringify(entry.type)}`);
  return new EngineError(
    'state_corrupt',
    `state ${location.display} records ${unknown.length === 1 ? 'an object' : `${unknown.length} objects`} of a type this secretform does not know:\n  ${lines.join('\n  ')}\n` +
      `Known types: ${RESOURCE_TYPES.map((type) => type.type).join(', ')}. The state was written by a newer secretform or edited by hand: ` +
      `use the secretform that wrote it, or remove the entry with \`secretform state rm ${unknown[0][0]}\` (the object on the service stays as it is).`,
  );
}
