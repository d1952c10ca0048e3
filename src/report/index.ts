/**
 * Plan reports: `renderText` for terminals, `renderMarkdown` for pull-request comments, `renderJson` for
 * scripts (`plan --format text|markdown|json`). Each takes the engine's `Plan` and never sees a secret value.
 */
export { renderJson, planToJson, type PlanJson, type ResourceChangeJson, type ResourceDriftJson } from './json';
export { renderText, type TextOptions } from './text';
export { renderMarkdown, statusLine, DEFAULT_MARKDOWN_MAX_LENGTH, type MarkdownOptions } from './markdown';
export { shouldUseColor, type ColorTarget, type Environment } from './color';
export { renderStacksText } from './stacks-text';
export { renderStacksMarkdown } from './stacks-markdown';
export { renderStacksJson, stacksToJson, type StacksPlanJson } from './stacks-json';
export type { StackReport } from './stacks-view';
export { renderSarif, sarifLog, SARIF_SCHEMA_URI, type SarifOptions } from './sarif';
