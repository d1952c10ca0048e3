/**
 * Lookups over a type's field list, made once per list: the checks of a loaded desired state ask them for
 * every field of every resource (a `fields.find` per field and a new filtered list per spec were about 20 ms
 * of a plan's start-up at 10,000 resources).
 */
import type { FieldSpec } from './types';

export interface FieldIndex {
  /** Each field by its service name. */
  readonly byApi: ReadonlyMap<string, FieldSpec>;
  /** The fields code may set: neither secret nor computed. */
  readonly settable: readonly FieldSpec[];
  /** The settable fields code must set. */
  readonly required: readonly FieldSpec[];
  /** The identity fields (part of the API path). */
  readonly identity: readonly FieldSpec[];
}

// Keyed by the list itself: field lists are never changed, and a type made with other fields has another list.
const indexes = new WeakMap<readonly FieldSpec[], FieldIndex>();

export function fieldIndex(fields: readonly FieldSpec[]): FieldIndex {
  let index = indexes.get(fields);
  if (!index) {
    const byApi = new Map<string, FieldSpec>();
    // The first field of a name wins, as with `fields.find`.
    for (const field of fields) if (!byApi.has(field.api)) byApi.set(field.api, field);
    const settable = fields.filter((field) => !field.sensitive && !field.computed);
    index = {
      byApi,
      settable,
      required: settable.filter((field) => field.required),
      identity: fields.filter((field) => field.identity),
    };
    indexes.set(fields, index);
  }
  return index;
}
