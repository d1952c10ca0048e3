/** Fields the service deprecated, as the resource model declares them: they may stop working in a later release. */
import { findResourceType } from '../../resources/registry';
import { definePolicy } from '../policy';

export const noDeprecatedFields = definePolicy({
  id: 'no-deprecated-fields',
  description: 'No construct sets a field the service has deprecated: it may be ignored or refused by a later release.',
  enforcement: 'advisory',
  check(resource) {
    if (resource.desired === null) return [];
    const fields = findResourceType(resource.type)?.fields ?? [];
    return fields
      .filter((field) => field.deprecated !== undefined && isSet(resource.desired![field.api]))
      .map((field) => ({ field: field.api, message: `deprecated: ${field.deprecated} (prop ${field.prop})` }));
  },
});

function isSet(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  return !(Array.isArray(value) && value.length === 0);
}
