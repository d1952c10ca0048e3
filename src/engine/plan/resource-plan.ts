/** The engine's internal plan of one resource: the public `PlannedChange` plus what apply needs to carry it out. */
import type { Attributes, ResourceType } from '../../resources/types';
import type { DesiredResource } from '../setup/desired';
import type { LiveObject } from '../refresh/refresh-request';
import type { ResourceState } from '../state/state-file';
import type { ActionReason, DriftEntry, PlannedChange } from './plan';
import type { Guardrails } from './lifecycle';

export interface ResourcePlan {
  readonly address: string;
  readonly resourceType: ResourceType;
  readonly change: PlannedChange;
  readonly drift?: DriftEntry;
  /** The resource in code (absent when it is only in state). */
  readonly desired?: DesiredResource;
  /** Canonical desired attributes. */
  readonly canonical?: Attributes;
  readonly stateEntry?: ResourceState;
  readonly live: LiveObject;
  /** Identity of the object a delete removes: the one recorded in state, else the one in code. */
  readonly deleteIdentity: Attributes;
  /** Attributes a create or update writes (canonical desired, plus fields removed from code reset to the default). */
  readonly writeAttributes: Attributes;
  /** Fields to send as `""` (partial-empty-deletes writes: a field removed from code). */
  readonly clear: readonly string[];
  /** Whether an update needs the write call (a create always does). */
  readonly writeCall: boolean;
  /**
   * Secret fields this change writes. Their values stay in the resolved secrets and are looked up when the
   * request is built, so no plan object ever holds one.
   */
  readonly writeSecrets: readonly string[];
  /** Addresses this resource needs first (from code, else from state). */
  readonly dependencies: readonly string[];
  /**
   * The address the object had in state before its construct id changed (same type and id): apply renames its
   * state entry to this resource's address instead of deleting and re-creating the object.
   */
  readonly movedFrom?: string;
  /** Whether the object is protected or retained (code first, else state; lifecycle.ts). */
  readonly guardrails?: Guardrails;
}

/**
 * The same resource planned to stay as it is (refresh-only runs): a new value,
 * the original is left untouched.
 */
export function keptAsIs(resource: ResourcePlan, reasons: readonly ActionReason[] = []): ResourcePlan {
  const { change } = resource;
  return {
    ...resource,
    change: {
      ...change,
      action: 'no-op',
      reasons,
      after: change.before,
      sensitive: [],
      replacePaths: [],
      fieldChanges: [],
    },
    writeCall: false,
    writeSecrets: [],
  };
}
