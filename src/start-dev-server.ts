/**
 * `startDevServer` as the package exports it. The dev server (about 70 modules, and bcryptjs) is loaded on the
 * first call, not by the package entry point: an app that imports only constructs from the package does not pay
 * for loading it (issue 35), nor does `secretform --help` (the CLI's `dev-server` command starts it through here).
 */
import type * as server from './devserver/server';
import type { DevServer, DevServerOptions } from './devserver/server';

/** Starts the dev server: an in-memory emulation of the service on a real HTTP port. */
export function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a top-level import would load the server with every construct app
  return (require('./devserver/server') as typeof server).startDevServer(options);
}
