// The declarations use Node's types (Buffer, node:net, NodeJS.ProcessEnv): this reference makes a user's
// compiler load them from our @types/node dependency even when its `types` list is empty (TypeScript 7's default).
/// <reference types="node" preserve="true" />
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
  ResourceType, FieldSpec, FieldKind, ApiCall, ApiPaths, WriteSemantics, WriteBodyOptions, Attributes, DeleteSteps, SecretVerdict,
  HealthProblem, HealthDriftKind, OperationName, OperationOption, OperationInput, OperationSpec, Consequence, CountedConsequence,
  UncountedConsequence,
} from './resources';

// Desired state: from a synth output directory (`desiredFromStack`, for an in-memory stack, is a construct export).
export { loadDesired, listSynthesizedStacks, DesiredStateError } from './engine/setup/desired';
export type { DesiredResource, DesiredStack } from './engine/setup/desired';

// The synthesized spec format, written by the constructs and read by the engine.
export { SPEC_FORMAT_VERSION, readSynthesizedSpecs, writeSynthesizedSpec, SpecFormatError } from './synthesized-spec';
export type { SynthesizedSpec, ResourceLifecycle } from './synthesized-spec';

// Synthesis (what `secretform synth` runs), usable from code.
export { synthesize, SynthError } from './synthesize';
export type { SynthOptions, SynthResult } from './synthesize';

// Engine API (plan / apply / destroy as functions), taking an in-memory stack too.
// The engine itself is loaded on the first call of a command (api.ts), not by this entry point: an app that
// imports only constructs from the package does not pay for loading the engine, its client and their packages
// (issue 35). So the values below come from the modules that define them (each loads a few small files), not
// from the engine's index.
export { plan, createSavedPlan, apply, destroy, applySavedPlan, importResource, stateList, stateShow, stateRm, stateMv, resolveStack } from './api';
export type { DesiredSource, EngineOptions, ApplyOptions } from './api';
export { defaultStatePath } from './engine/setup/stack-name';
export { summarize, hasChangesOrDrift, hasActions } from './engine/plan/plan';
export { EngineError } from './engine/errors';
export { STATE_KEY_ENV } from './engine/state/fingerprint';
export { readSavedPlan, writeSavedPlan } from './engine/saved-plan/saved-plan';
// A stack's service connection (its ServiceConnection, else SERVICE_*), checked without any request.
export { checkStackConnection } from './engine/setup/stack-connection';
export type { CheckedConnection, StackConnectionInput } from './engine';
// Operations on managed objects (what `secretform action` runs); over a synth output (EngineOptions.desired).
export { runOperation, offeredOperations } from './api';
export type { OperationRequest, OperationAnswer } from './engine';
export type {
  ApplyResult, OperationOutcome, ProgressEvent, Plan, PlannedChange, PlanAction, ActionReason, DriftEntry,
  DriftKind, SecretStatus, SecretFieldStatus, PlanSummary, FieldChange, FieldDrift, ResourceState, StateFile, EngineErrorCode, Result,
  ImportedResource, StateListEntry, StateMoved, StateOnlyChange, SavedPlan, SavedPlanApplyOptions,
} from './engine';

// Policies over the plan (`--policy`): the API packs are written with, the built-in pack, loading packs.
export { definePolicy, PolicyDefinitionError, SENSITIVE_PLACEHOLDER, RECOMMENDED_PACK, RECOMMENDED_POLICIES, loadPolicyPacks, PolicyLoadError, DEFAULT_POLICY_TIMEOUT_MS } from './policy';
export type {
  Policy, PolicyDefinition, PolicyEnforcement, PolicyResource, PolicyViolation, PolicyAttributes, PolicyDrift, PolicyCheckOutcome, LoadedPolicies, PolicyLoadOptions,
  PolicyEvaluation, PolicyResult, PolicyRule, PolicyStatus,
} from './policy';

// The built-in dev server (loaded on the first call).
export { startDevServer } from './start-dev-server';
