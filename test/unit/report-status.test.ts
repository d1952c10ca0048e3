import { planOutcome, OUTCOME_LOOK } from '../../src/report/status';
import type { Plan, PlannedChange } from '../../src/engine/plan/plan';

function change(action: PlannedChange['action']): PlannedChange {
  return {
    address: `s/${action}`, type: 't', id: `t/${action}`, action, reasons: [], before: null, after: null,
    sensitive: [], replacePaths: [], fieldChanges: [], secrets: [],
  };
}

function plan(changes: PlannedChange[], drifted = false): Plan {
  const drift = drifted
    ? [{ address: 's/x', type: 't', id: 't/x', kind: 'changed' as const, before: {}, after: {}, fields: [] }]
    : [];
  return { stack: 's', refreshOnly: false, changes, drift, warnings: [] };
}

describe('planOutcome', () => {
  it('is no_changes when every resource is a no-op and nothing drifted', () => {
    expect(planOutcome(plan([change('no-op')]))).toBe('no_changes');
  });
  it('is changes for creates and updates', () => {
    expect(planOutcome(plan([change('create'), change('update')]))).toBe('changes');
  });
  it('is drift when something drifted and nothing is destroyed', () => {
    expect(planOutcome(plan([change('update')], true))).toBe('drift');
  });
  it('is destroys as soon as one resource is deleted or replaced, drift or not', () => {
    expect(planOutcome(plan([change('create'), change('replace')], true))).toBe('destroys');
    expect(planOutcome(plan([change('delete')]))).toBe('destroys');
  });
  it('is policy_failed when a mandatory policy failed, before destroys; an advisory failure changes nothing', () => {
    const result = (enforcement: 'mandatory' | 'advisory') => ({ policy: 'p', enforcement, address: 's/delete', status: 'failed' as const, message: 'm', fields: [] });
    const withPolicy = (enforcement: 'mandatory' | 'advisory'): Plan => ({ ...plan([change('delete')]), policy: { packs: ['recommended'], rules: [], results: [result(enforcement)] } });
    expect(planOutcome(withPolicy('mandatory'))).toBe('policy_failed');
    expect(planOutcome(withPolicy('advisory'))).toBe('destroys');
  });
  it('has a word and an icon for every outcome', () => {
    for (const look of Object.values(OUTCOME_LOOK)) {
      expect(look.word.length).toBeGreaterThan(0);
      expect(look.icon.length).toBeGreaterThan(0);
    }
  });
});
