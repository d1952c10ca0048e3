import { TemplateError } from './errors';

/**
 * Bounds on one template render, so a template sent in a request can neither hold the server nor fill its memory
 * (`{{random 100000000}}` once took 18 s and 3.3 GB). The service document gives no limits; these are far above
 * what a username, LDIF or secret name template needs. Documented in docs/dev-server.md.
 */
export const TEMPLATE_LIMITS = {
  /** Characters of template source. */
  maxSourceChars: 64 * 1024,
  /** Characters (or bytes, for utf16le output) of the rendered text and of any value made on the way. */
  maxOutputChars: 256 * 1024,
  /** Nodes executed, range iterations and function calls together. */
  maxSteps: 100_000,
  /** Wall-clock time of one render. */
  maxMilliseconds: 500,
  /** `random N`: N at most this. */
  maxRandomLength: 4096,
  /** printf width and precision, as Go's fmt (larger is `%!(BADWIDTH)` / `%!(BADPREC)`). */
  maxPrintfWidth: 1_000_000,
  /** Nesting of parentheses and control blocks. */
  maxNesting: 100,
} as const;

/** A template went over one of TEMPLATE_LIMITS. Areas answer it with 400 (the request was too big, not broken). */
export class TemplateLimitError extends TemplateError {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateLimitError';
  }
}

/** Counts the work of one render against TEMPLATE_LIMITS. */
export class RenderBudget {
  private steps = 0;
  private readonly startedAt = Date.now();

  /** One unit of work (a node, an iteration, a function call). */
  step(): void {
    this.steps += 1;
    if (this.steps > TEMPLATE_LIMITS.maxSteps) {
      throw new TemplateLimitError(`template: execution took more than ${TEMPLATE_LIMITS.maxSteps} steps`);
    }
    if ((this.steps & 0xff) === 0 && Date.now() - this.startedAt > TEMPLATE_LIMITS.maxMilliseconds) {
      throw new TemplateLimitError(`template: execution took more than ${TEMPLATE_LIMITS.maxMilliseconds} ms`);
    }
  }

  /** Refuses a value or output of `length` characters over the output limit. */
  checkSize(length: number): void {
    checkOutputSize(length);
  }
}

export function checkOutputSize(length: number): void {
  if (length > TEMPLATE_LIMITS.maxOutputChars) {
    throw new TemplateLimitError(`template: output larger than ${TEMPLATE_LIMITS.maxOutputChars} characters`);
  }
}

export function checkSourceSize(source: string): void {
  if (source.length > TEMPLATE_LIMITS.maxSourceChars) {
    throw new TemplateLimitError(`template: longer than ${TEMPLATE_LIMITS.maxSourceChars} characters`);
  }
}
