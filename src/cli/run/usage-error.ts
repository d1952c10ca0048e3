/** A flag value the command cannot use; reported as `Error: <message>` with exit code 1 before any work starts. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
