/**
 * Requests in flight at once to one service address, by default (`--parallelism`). A file of its own: the CLI
 * shows it in every command's options, and `secretform stacks`, which sends no request, must not load the
 * client (undici) that run-limits.ts, where it is used, imports.
 */
export const DEFAULT_PARALLELISM = 10;
