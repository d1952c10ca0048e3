/**
 * `ignoreChanges`: the fields of an existing object the diff leaves alone. They are written when the object is
 * created (and when it is replaced, which creates it again); afterwards a change in code is not sent and a
 * change on the service is not drift. `['*']` means every field but the object's identity.
 */
import type { Attributes, ResourceType } from '../../resources/types';
import type { ResourceLifecycle } from '../../synthesized-spec';

export const EVERY_FIELD = '*';

/** The service field names the diff of an existing object leaves alone. */
export function ignoredFields(resourceType: ResourceType, lifecycle: ResourceLifecycle | undefined): ReadonlySet<string> {
  const names = lifecycle?.ignoreChanges ?? [];
  if (!names.includes(EVERY_FIELD)) return new Set(names);
  return new Set(resourceType.fields.filter((field) => !field.identity).map((field) => field.api));
}

/**
 * What an update writes for the ignored fields: the value the service holds now (so a write that replaces the
 * whole object keeps someone else's change), or nothing when the service holds none.
 */
export function keepLiveValues(write: Attributes, live: Attributes, ignored: ReadonlySet<string>): Attributes {
  if (ignored.size === 0) return write;
  const kept: Attributes = { ...write };
  for (const name of ignored) {
    if (live[name] !== undefined) kept[name] = live[name];
    else delete kept[name];
  }
  return kept;
}

/** The resolved secrets of an object without the ignored ones (an update neither compares nor sends them). */
export function withoutIgnored<T>(values: Readonly<Record<string, T>>, ignored: ReadonlySet<string>): Record<string, T> {
  return Object.fromEntries(Object.entries(values).filter(([name]) => !ignored.has(name)));
}

/** Validation of a spec's ignored names against the type (a spec edited by hand, or synthesized without checks). */
export function unknownIgnoredFields(resourceType: ResourceType, lifecycle: ResourceLifecycle | undefined): string[] {
  const names = lifecycle?.ignoreChanges ?? [];
  // Most specs ignore nothing: no set of the type's field names to build for them (10,000 sets cost ~25 ms).
  if (names.length === 0) return [];
  const known = new Set(resourceType.fields.filter((field) => !field.identity).map((field) => field.api));
  return names.filter((name) => name !== EVERY_FIELD && !known.has(name));
}
