import { threeWayDiff, type DiffFieldTraits } from '../../src/engine/plan/diff/three-way';

const traits: DiffFieldTraits[] = [
  { name: 'rotation_period', serverDefault: undefined },
  { name: 'username', immutable: true },
  { name: 'token_policies', unordered: true, serverDefault: [] },
  { name: 'token_ttl', serverDefault: 0 },
  { name: 'skip_import_rotation', createOnly: true },
];

describe('threeWayDiff', () => {
  it('shows no change when live equals desired, whatever the server added on its own', () => {
    const result = threeWayDiff(
      { rotation_period: 3600 },
      { rotation_period: 3600 },
      { rotation_period: 3600, token_ttl: 0, last_service_rotation: '2026-01-01T00:00:00Z' },
      traits,
    );
    expect(result).toEqual({ changes: [], drift: [] });
  });

  it('ignores list order where the service does not keep it', () => {
    const result = threeWayDiff({ token_policies: ['a', 'b'] }, { token_policies: ['a', 'b'] }, { token_policies: ['b', 'a'] }, traits);
    expect(result.changes).toEqual([]);
  });

  it('plans an update for a field changed in code, and a replacement for an immutable one', () => {
    const result = threeWayDiff(
      { rotation_period: 7200, username: 'bob' },
      { rotation_period: 3600, username: 'alice' },
      { rotation_period: 3600, username: 'alice' },
      traits,
    );
    expect(result.changes).toEqual([
      { field: 'rotation_period', from: 3600, to: 7200, forcesReplacement: false },
      { field: 'username', from: 'alice', to: 'bob', forcesReplacement: true },
    ]);
    expect(result.drift).toEqual([]);
  });

  it('reports a field changed outside the code as drift and plans to set it back', () => {
    const result = threeWayDiff({ rotation_period: 3600 }, { rotation_period: 3600 }, { rotation_period: 60 }, traits);
    expect(result.drift).toEqual([{ field: 'rotation_period', applied: 3600, live: 60 }]);
    expect(result.changes).toEqual([{ field: 'rotation_period', from: 60, to: 3600, forcesReplacement: false }]);
  });

  it('resets a field removed from code to the service default', () => {
    const result = threeWayDiff({}, { token_ttl: 300 }, { token_ttl: 300 }, traits);
    expect(result.changes).toEqual([{ field: 'token_ttl', from: 300, to: 0, forcesReplacement: false }]);
  });

  it('never compares create-only fields after creation', () => {
    const result = threeWayDiff({ skip_import_rotation: true }, { skip_import_rotation: true }, {}, traits);
    expect(result).toEqual({ changes: [], drift: [] });
  });

  it('treats a field missing from the live read as the service default', () => {
    const result = threeWayDiff({ token_policies: [] }, undefined, {}, traits);
    expect(result.changes).toEqual([]);
  });
});
