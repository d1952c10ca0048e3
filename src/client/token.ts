import { inspect } from 'node:util';

const REDACTED = '[redacted SERVICE_TOKEN]';

/**
 * The service token, kept out of logs: printing, inspecting or JSON-serialising it shows a placeholder.
 * Only the client reads the value (`reveal()`), to put it into the `X-Service-Token` header.
 */
export class ServiceToken {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
