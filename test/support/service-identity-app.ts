/**
 * The setup of the service-identity e2e tests (docs/state.md, "Which service a state belongs to"): two dev
 * servers A and B with one root token, and a project whose stack `prod` reaches its service through a
 * ServiceConnection, so a test can apply on A and then point the same stack at B, as a user going from one
 * environment to two would.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { ROOT, cliEnv } from '../e2e/cli-harness';
import { tempDir } from './temp-dir';

export interface TwoServices {
  readonly a: DevServer;
  readonly b: DevServer;
}

/** Servers A and B, both taking `token` as their root token. */
export async function startTwoServices(token: string): Promise<TwoServices> {
  return { a: await startDevServer({ port: 0, rootToken: token }), b: await startDevServer({ port: 0, rootToken: token }) };
}

export async function closeTwoServices(services: TwoServices | undefined): Promise<void> {
  await services?.a.close();
  await services?.b.close();
}

/** A fresh project directory whose cdktf.json runs `node main.js` (written by `writeProdApp`). */
export function identityProject(prefix: string): string {
  const project = tempDir(prefix);
  writeFileSync(join(project, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
  return project;
}

/**
 * main.js: stack `prod` on `address` through its ServiceConnection `prod/service` (its token in
 * PROD_SERVICE_TOKEN), then `constructs`, lines of JavaScript with `sf` (the package) and `stack` in scope.
 */
export function writeProdApp(project: string, address: string, constructs: readonly string[]): void {
  writeFileSync(join(project, 'main.js'), `${[
    `const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});`,
    `const sf = require(${JSON.stringify(join(ROOT, 'dist'))});`,
    'const app = new App();',
    "const stack = new TerraformStack(app, 'prod');",
    `new sf.ServiceConnection(stack, 'service', { address: ${JSON.stringify(address)}, tokenEnv: 'PROD_SERVICE_TOKEN' });`,
    ...constructs,
    'app.synth();',
  ].join('\n')}\n`);
}

/** The environment of a run that talks to the stack's connection only: SERVICE_ADDR names nothing listening. */
export function identityEnv(token: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return cliEnv({ url: 'http://127.0.0.1:9', rootToken: token }, { ...extra, PROD_SERVICE_TOKEN: token });
}
