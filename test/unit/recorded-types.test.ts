/** State entries of unknown types are reported sorted by address, only among the addresses a run covers. */
import { unknownRecordedTypes } from '../../src/engine/state/recorded-types';
import { emptyState, type ResourceState } from '../../src/engine/state/state-file';
import type { StateLocation } from '../../src/engine/state/state-location';

const entry = (type: string): ResourceState => ({ type, id: `x/${type}`, attributes: {}, secrets: {}, dependencies: [], applied_at: 'now' });
const location = { display: '.secretform/prod.state.json' } as StateLocation;

test('names every unknown entry the run covers, by address, and how to remove the first', () => {
  const state = emptyState('prod');
  Object.assign(state.resources, { 'prod/z': entry('nope_v2'), 'prod/known': entry('auth_mount'), 'prod/a': entry('nope_v9'), 'prod/skipped': entry('nope_v3') });
  const error = unknownRecordedTypes(state, location, new Set(['prod/z', 'prod/known', 'prod/a']));
  expect(error?.code).toBe('state_corrupt');
  expect(error?.message).toContain('state .secretform/prod.state.json records 2 objects of a type this secretform does not know:\n  prod/a: unknown resource type "nope_v9"\n  prod/z: unknown resource type "nope_v2"\n');
  expect(error?.message).toContain('`secretform state rm prod/a`');
  expect(unknownRecordedTypes(state, location, new Set(['prod/known']))).toBeUndefined();
  expect(unknownRecordedTypes(state, location)?.message).toContain('records 3 objects');
});
