/** The engine's internal plan of one resource: the public `PlannedChange` plus what apply needs to carry it out. */
import type { Attributes, ResourceType } from '../../resources/types';
import type { DesiredResource } from '../desired';
import type { LiveObject } from '../refresh';
import type { ResourceState } from '../state/state-file';
import type { DriftEntry, PlannedChange } from './plan';

export interface ResourcePlan {
  address: string;
  resourceType: ResourceType;
  change: PlannedChange;
  drift?: DriftEntry;
  /** The resource in code (absent when it is only in state). */
  desired?: DesiredResource;
  /** Canonical desired attributes. */
  canonical?: Attributes;
  stateEntry?: ResourceState;
  live: LiveObject;
  /** Identity of the object a delete removes: the one recorded in state, else the one in code. */
  deleteIdentity: Attributes;
  /** Attributes a create or update writes (canonical desired, plus fields removed from code reset to the default). */
  writeAttributes: Attributes;
  /** Fields to send as `""` (partial-empty-deletes writes: a field removed from code). */
  clear: string[];
  /** Whether an update needs the write call (a create always does). */
  writeCall: boolean;
  /**
   * Secret fields this change writes. Their values stay in the resolved secrets and are looked up when the
   * request is built, so no plan object ever holds one.
   */
  writeSecrets: string[];
  /** Addresses this resource needs first (from code, else from state). */
  dependencies: string[];
  /**
   * The address the object had in state before its construct id changed (same type and id): apply renames its
   * state entry to this resource's address instead of deleting and re-creating the object.
   */
  movedFrom?: string;
}
