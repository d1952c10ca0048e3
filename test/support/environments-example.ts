/**
 * The setup of the tests of the environments example (examples/environments): its two dev servers, each with
 * the root token the walkthrough gives it, the CLI's environment (no default service: every stack reaches its
 * own through a ServiceConnection; the demo secrets; each server's address and token), and the synth of the
 * example's app in a work directory.
 */
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { DEMO_SECRETS, ROOT_TOKENS, type Environment } from '../../examples/environments/walkthrough';
import { ROOT, cliEnv, runCli } from '../e2e/cli-harness';

const EXAMPLE = join(ROOT, 'examples', 'environments');
const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

export type EnvironmentServers = Record<Environment, DevServer>;

export async function startEnvironmentServers(): Promise<EnvironmentServers> {
  return {
    staging: await startDevServer({ port: 0, rootToken: ROOT_TOKENS.staging }),
    prod: await startDevServer({ port: 0, rootToken: ROOT_TOKENS.prod }),
  };
}

export async function closeEnvironmentServers(servers: EnvironmentServers | undefined): Promise<void> {
  await servers?.staging.close();
  await servers?.prod.close();
}

/** The example's environment; `extra` as cliEnv takes it (undefined removes a variable). */
export function environmentsEnv(servers: EnvironmentServers, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  // A default service that answers nothing: a stack that did not use its own connection would fail.
  return cliEnv({ url: 'http://127.0.0.1:1', rootToken: 'not-the-token-of-either-server' }, {
    ...DEMO_SECRETS,
    STAGING_SERVICE_TOKEN: ROOT_TOKENS.staging,
    PROD_SERVICE_TOKEN: ROOT_TOKENS.prod,
    ENVIRONMENTS_STAGING_ADDR: servers.staging.url,
    ENVIRONMENTS_PROD_ADDR: servers.prod.url,
    SECRETFORM_SYNTH_ENV: 'ENVIRONMENTS_*',
    ...extra,
  });
}

/** `secretform synth` of the example's app, its output in `dir`'s cdktf.out. */
export function synthEnvironments(dir: string, env: NodeJS.ProcessEnv): ReturnType<typeof runCli> {
  return runCli(['synth', '--app', `${process.execPath} ${TSX} ${join(EXAMPLE, 'main.ts')}`], dir, env);
}
