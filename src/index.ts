/**
 * The public API of the `secretform` package: the constructs, `SecretValue`, the resource model, the desired
 * state loader, the engine API and the dev server.
 */

// Constructs (one file per area under ./constructs).
export * from './constructs';

// Credentials given to constructs: only references are synthesized.
export { SecretValue, resolveSecretValue } from './secret-value';
export type { SecretReference, ResolveOptions } from './secret-value';

// The resource model: one definition per resource type, shared by constructs, engine and reports.
export {
  RESOURCE_TYPES, allResourceTypes, getResourceType, findResourceType, resourceTypeOfConstruct, ImportIdError,
} from './resources';
export type {
  ResourceType, FieldSpec, FieldKind, ApiCall, ApiPaths, WriteSemantics, WriteBodyOptions, Attributes,
} from './resources';

// Desired state: from a synth output directory, or from an in-memory stack.
export { loadDesired, listSynthesizedStacks, desiredFromStack, DesiredStateError } from './engine/desired';
export type { DesiredResource, DesiredStack } from './engine/desired';

// Synthesis (`secretform synth`), usable from code.
export { synthesize } from './cli/commands/synth';
export type { SynthOptions, SynthResult } from './cli/commands/synth';

// Engine API (plan / apply / destroy as functions).
export {
  plan, apply, destroy, importResource, stateList, stateShow, stateRm, stateMv, resolveStack, defaultStatePath, summarize, hasChangesOrDrift, hasActions,
  EngineError, STATE_KEY_ENV, createSavedPlan, applySavedPlan, readSavedPlan, writeSavedPlan,
} from './engine';
export type {
  EngineOptions, ApplyOptions, ApplyResult, OperationOutcome, ProgressEvent, DesiredSource, Plan, PlannedChange, PlanAction, DriftEntry,
  DriftKind, SecretStatus, SecretFieldStatus, PlanSummary, FieldChange, FieldDrift, ResourceState, StateFile, EngineErrorCode, Result,
  ImportedResource, StateListEntry, StateMoved, StateOnlyChange, SavedPlan, SavedPlanApplyOptions,
} from './engine';

// The built-in dev server.
export { startDevServer } from './devserver/server';
