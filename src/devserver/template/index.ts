/**
 * The Go text/template subset used by the directory engine (LDIF and username templates) and secret sync
 * (secret_name_template). See service-api.md "Template language".
 */
export { TemplateError } from './errors';
export { TEMPLATE_LIMITS, TemplateLimitError } from './limits';
export { renderTemplate, checkTemplate } from './render';
export type { TemplateOptions } from './render';
