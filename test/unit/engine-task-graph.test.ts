import { buildOperations } from '../../src/engine/apply/task-graph';
import type { ResourcePlan } from '../../src/engine/plan/resource-plan';
import type { PlanAction } from '../../src/engine/plan/plan';

function resource(address: string, action: PlanAction, dependencies: string[] = []): ResourcePlan {
  return { address, change: { action }, dependencies } as unknown as ResourcePlan;
}

const after = (tasks: { key: string; after: string[] }[]) => Object.fromEntries(tasks.map((t) => [t.key, [...t.after].sort()]));

test('creates wait for their dependencies; deletes wait for their dependents', () => {
  const { tasks } = buildOperations([
    resource('app', 'create'),
    resource('dest', 'create', ['app']),
    resource('old-assoc', 'delete', ['old-dest']),
    resource('old-dest', 'delete', ['app']),
  ]);
  expect(after(tasks)).toEqual({
    'write:app': [],
    'write:dest': ['write:app'],
    'delete:old-assoc': [],
    'delete:old-dest': ['delete:old-assoc'],
  });
});

test('a replace deletes before it creates, and a replaced dependent goes first and comes back last', () => {
  const { tasks, operations } = buildOperations([resource('dest', 'replace'), resource('assoc', 'replace', ['dest']), resource('other', 'no-op')]);
  expect(after(tasks)).toEqual({
    'delete:dest': ['delete:assoc'],
    'write:dest': ['delete:dest'],
    'delete:assoc': [],
    'write:assoc': ['delete:assoc', 'write:dest'],
  });
  expect([...operations.values()].map((o) => o.label).sort()).toEqual(['replace:create', 'replace:create', 'replace:delete', 'replace:delete']);
});
