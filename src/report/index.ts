/**
 * Plan reports: `renderText` for terminals, `renderMarkdown` for pull-request comments, `renderJson` for
 * scripts (`plan --format text|markdown|json`). Each takes a section per stack (`StackReport`: the engine's
 * `Plan`, or why a stack has none), shows one stack that planned as that stack alone and several stacks each
 * under its name with totals, and never sees a secret value.
 */
export { renderJson, jsonReportPieces, reportToJson, planToJson, type PlanJson, type StacksPlanJson, type ResourceChangeJson, type ResourceDriftJson } from './json';
export { renderText, type TextOptions } from './text';
export { renderMarkdown, DEFAULT_MARKDOWN_MAX_LENGTH, type MarkdownOptions, type CommentContext } from './markdown';
export { shouldUseColor, type ColorTarget, type Environment } from './color';
export { reportWarnings, stackReport, unchangedStackReport, UNCHANGED_WORDS, type StackReport, type UnchangedStackReport } from './stacks-view';
export { describeEngineError, type SubjectError } from './engine-error';
export { renderSarif, sarifLog, SARIF_SCHEMA_URI, type SarifOptions } from './sarif';
