/** Secret sync stays on: while it is suspended, rotated secrets stop reaching the systems that use them. */
import { definePolicy } from '../policy';
import { effectiveValue, modelField } from './model-facts';

const SYNC_CONFIG = 'sync_config';
const DISABLED = modelField(SYNC_CONFIG, 'disabled');

export const syncEnabled = definePolicy({
  id: 'sync-enabled',
  description: 'Secret sync is not suspended: while it is, rotated and revoked secrets stay stale in every external destination.',
  enforcement: 'advisory',
  resourceTypes: [SYNC_CONFIG],
  check(resource) {
    if (resource.desired === null) return [];
    return effectiveValue(resource, DISABLED) === true
      ? [{ field: DISABLED.api, message: 'sync is suspended: operations queue as PENDING until it is re-enabled; remove disabled: true' }]
      : [];
  },
});
