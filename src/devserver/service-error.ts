/** An error response: `{"errors": [...]}` with a status. Thrown by handlers, turned into a response by the core. */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly errors: string[],
  ) {
    super(errors.join('; ') || `status ${status}`);
  }
}
