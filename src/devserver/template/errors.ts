/** A template that does not parse or fails while rendering. The message names the position (`line:col`). */
export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}
