/**
 * The port the dev server listens on when none is given. In a module of its own, so `secretform --help` can show
 * it without loading the server (about 70 modules, zod and bcryptjs).
 */
export const DEFAULT_PORT = 8200;
