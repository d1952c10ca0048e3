/**
 * The engine API: plan, apply, destroy, import and the state commands as functions. The CLI is a thin layer
 * over these; programs can call them too (re-exported from the package root).
 */
/** One function per command, over a stack set (a run of one stack is a set of one): see stacks/. */
export { plan, createSavedPlan } from './stacks/stacks-plan';
export { apply, destroy, applySavedPlan } from './stacks/stacks-change';
export type { StackPreview, StacksChangeOptions, StacksChangeResult, SavedPlanSetApplyOptions } from './stacks/stacks-change';
export type { StackSetOptions } from './stacks/stack-set';
export type { StackOutcome } from './stacks/stack-scheduler';
/** Change detection: which stacks have something new to plan from the code (`secretform stacks`, `--changed`). */
export { detectChangedStacks } from './stacks/changed-stacks';
export type { ChangeDetectionOptions, ChangeReason, StackChange } from './stacks/changed-stacks';
export { stackWaves } from './stacks/stack-waves';
export type { SavedPlanApplyOptions } from './run/apply-run';
export { readSavedPlan, writeSavedPlan, SAVED_PLAN_FORMAT, SAVED_PLAN_VERSION } from './saved-plan/saved-plan';
export type { SavedPlan } from './saved-plan/saved-plan';
export { checkSavedPlanWithoutService, ALLOW_UNVERIFIED_FLAG } from './saved-plan/plan-mac';
export { verifySavedPlanSet, checkSavedPlanSetWithoutService, type SavedPlanVerificationOptions } from './saved-plan/verify-saved-plan-set';
export type { SavedPlanMac } from './saved-plan/plan-mac';
export { importResource, importAll } from './apply/import-resource';
export type { ImportedResource, ImportAllResult } from './apply/import-resource';
export { stateList, stateShow, stateRm, stateMv, stateHistory, stateRestore, statePull, statePush, stateLockHolder, forceUnlock, editState } from './run/state-commands';
export type { StateListEntry, StateMoved } from './run/state-commands';
export type { StateBackend, StateRef, StateChange, LockHolder, StateVersionInfo } from './state/backend';
export { STATE_ENV } from './state/state-location';
export { resolveStack, defaultStatePath, stackOfAddress } from './setup/stack-name';
export { checkServiceConnection, checkRunConnection } from './setup/run-context';
export { checkStackConnection, ENVIRONMENT_TOKEN_VARIABLE } from './setup/stack-connection';
export type { CheckedConnection, StackConnectionInput } from './setup/stack-connection';

export type { EngineOptions, ProgressEvent, DesiredSource } from './setup/engine-options';
export type { ApplyOptions, ApplyResult, OperationOutcome, StateOnlyChange } from './run/apply-options';
export type {
  Plan, PlannedChange, PlanAction, ActionReason, DriftEntry, DriftKind, SecretStatus, SecretFieldStatus, PlanSummary,
} from './plan/plan';
export { summarize, hasChangesOrDrift, hasActions } from './plan/plan';
export type { FieldChange, FieldDrift } from './plan/diff/three-way';
export type { ResourceState, StateFile } from './state/state-file';
export { EngineError, ok, fail } from './errors';
export type { EngineErrorCode, Result } from './errors';
export { STATE_KEY_ENV } from './state/fingerprint';
export { runOperation, offeredOperations } from './operations/operation-run';
export type { OperationRequest, OperationAnswer } from './operations/operation-run';
export { chooseSynthesizedStacks, isStackPattern, oneStackNameProblem, selectStacks, selectSynthesizedStacks, stateStackNameProblem } from './stacks/stack-selection';
export type { SelectionUse } from './stacks/stack-selection';
export { readSavedPlanSet, writeSavedPlanSet, SAVED_PLAN_SET_FORMAT } from './saved-plan/saved-plan-set';
export type { SavedPlanSet } from './saved-plan/saved-plan-set';
export { joinPlanFiles } from './saved-plan/plan-file-set';
export type { PlanFile } from './saved-plan/plan-file-set';
export { checkPlanFilesOrigin } from './saved-plan/plan-file-origin';
export type { PlanFileRun } from './saved-plan/plan-file-origin';
export { orderSavedPlanSet } from './stacks/stack-order';
export { checkStackDrift } from './drift/drift-check';
export { driftCheck } from './drift/stacks-drift';
export type { StackDriftCheck, DriftedObject, DriftCheckOptions } from './drift/drift-check';
export { acknowledgeDrift, unacknowledgeDrift, readDriftHistory } from './drift/acknowledge';
export type { DriftStatus, ResolvedDrift } from './drift/statuses';
export type { PendingChange } from './drift/pending';
