import { evaluateTemplate } from './evaluator';
import { functionTable } from './functions';
import { parseTemplate, type TemplateNode } from './parser';

export interface TemplateOptions {
  /** LDIF templates additionally define `utf16le`. */
  ldif?: boolean;
  /** Clock for `unix_time`, `unix_time_millis` and `timestamp` (milliseconds since the epoch). */
  now?: () => number;
  /**
   * What a field missing from the data does. `default` (like Go with map data): it prints `<no value>`, is
   * false in `if`, and is an error when passed to a function. `error` (Go's missingkey=error, and what a
   * deployed server does for its struct data): any missing field fails the render.
   */
  missingKey?: 'default' | 'error';
}

function parse(source: string, options: TemplateOptions): TemplateNode[] {
  return parseTemplate(source, new Set(functionTable(options.ldif ?? false).keys()));
}

/** Renders `source` with `data` as the dot value. Throws TemplateError on parse or execution errors. */
export function renderTemplate(source: string, data: Record<string, unknown>, options: TemplateOptions = {}): string {
  const ldif = options.ldif ?? false;
  return evaluateTemplate(parse(source, options), data, {
    functions: functionTable(ldif),
    now: options.now ?? Date.now,
    missingKey: options.missingKey ?? 'default',
  });
}

/** Parses `source` and checks every function it calls is defined; throws TemplateError otherwise. */
export function checkTemplate(source: string, options: TemplateOptions = {}): void {
  parse(source, options);
}
