/**
 * The operations of an apply and their order. Creates and updates wait for what they depend on; deletes wait
 * for what depends on them (associations before their destination, destinations before their GitHub app,
 * roles before their backend, mounts last); a replaced object is deleted, then created.
 */
import type { ScheduledTask } from './dependency-scheduler';
import type { ResourcePlan } from '../plan/resource-plan';

export interface Operation {
  key: string;
  address: string;
  kind: 'create' | 'update' | 'delete';
  /** The action reported in outcomes and progress: the plan's action, or `replace:delete` / `replace:create`. */
  label: string;
}

export function buildOperations(resources: Iterable<ResourcePlan>): { operations: Map<string, Operation>; tasks: ScheduledTask[] } {
  const all = [...resources];
  const operations = new Map<string, Operation>();
  const add = (operation: Operation) => operations.set(operation.key, operation);
  for (const resource of all) {
    const { address } = resource;
    switch (resource.change.action) {
      case 'create':
      case 'update':
        add({ key: writeKey(address), address, kind: resource.change.action, label: resource.change.action });
        break;
      case 'delete':
        add({ key: deleteKey(address), address, kind: 'delete', label: 'delete' });
        break;
      case 'replace':
        add({ key: deleteKey(address), address, kind: 'delete', label: 'replace:delete' });
        add({ key: writeKey(address), address, kind: 'create', label: 'replace:create' });
        break;
      case 'forget': // state only: no request (apply's housekeeping drops the entry)
      case 'no-op':
        break;
    }
  }

  // What each address needs, from code and from state: a delete must also respect what the object needed
  // when it was applied.
  const needs = new Map<string, Set<string>>();
  for (const resource of all) {
    needs.set(resource.address, new Set([...resource.dependencies, ...(resource.stateEntry?.dependencies ?? [])]));
  }
  // Who needs each address, built once (scanning every address per delete was quadratic).
  const neededBy = new Map<string, string[]>();
  for (const [address, needed] of needs) {
    for (const need of needed) {
      const list = neededBy.get(need);
      if (list) list.push(address);
      else neededBy.set(need, [address]);
    }
  }
  const tasks: ScheduledTask[] = [];
  for (const operation of operations.values()) {
    const after: string[] = [];
    if (operation.kind === 'delete') {
      for (const address of neededBy.get(operation.address) ?? []) {
        if (address !== operation.address && operations.has(deleteKey(address))) after.push(deleteKey(address));
      }
    } else {
      if (operations.has(deleteKey(operation.address))) after.push(deleteKey(operation.address));
      for (const dependency of needs.get(operation.address) ?? []) {
        if (operations.has(writeKey(dependency))) after.push(writeKey(dependency));
      }
    }
    tasks.push({ key: operation.key, after });
  }
  return { operations, tasks };
}

const writeKey = (address: string) => `write:${address}`;
const deleteKey = (address: string) => `delete:${address}`;
