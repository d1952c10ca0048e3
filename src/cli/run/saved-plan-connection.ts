/**
 * Which service a saved plan's stack may be applied against. The file is not trusted before its MAC is checked,
 * and without SECRETFORM_STATE_KEY the MAC's key is read from the service: so the service (its address, and the
 * variable whose token goes with the request) cannot come from the file alone. Before any request, each stack's
 * connection in the file must equal the one the run would use without the file: the stack's connection in the
 * existing synth output when that output holds the stack (`apply PLANFILE` synthesizes nothing), else the
 * `SERVICE_*` environment. A mismatch refuses, naming both; an edited file never sends the token anywhere. The
 * synth output is `--output`, else cdktf.json's or cdktf.out: a job that applies a plan of stacks with their own
 * ServiceConnection runs `secretform synth` of the checkout first.
 */
import * as path from 'node:path';
import type { SavedPlan } from '../../engine';
import { connectionOfObject, listSynthesizedStacks, loadDesired, type DesiredConnection } from '../../engine/setup/desired';
import { ENVIRONMENT_TOKEN_VARIABLE } from '../../engine/setup/stack-connection';
import { configuredOutputDir } from './engine-flags';
import { CommandFailure } from './command-failure';
import type { CliIo } from './io';

/** The settings two connections must share: everything that says where the token goes, and how. */
interface ConnectionSettings {
  address?: string;
  tokenEnv: string;
  caCertFile?: string;
  clientCertFile?: string;
  clientKeyFile?: string;
  skipVerify: boolean;
}

/** Why this stack's saved plan may not use the connection it names, or undefined when it matches. */
export function savedPlanConnectionMismatch(saved: Pick<SavedPlan, 'stack' | 'connection'>, io: CliIo, output?: string): CommandFailure | undefined {
  const why = mismatch(saved, io, output);
  return why === undefined ? undefined : new CommandFailure('service_mismatch', why);
}

function mismatch(saved: Pick<SavedPlan, 'stack' | 'connection'>, io: CliIo, output?: string): string | undefined {
  let named: DesiredConnection | undefined;
  try {
    named = saved.connection === undefined ? undefined : connectionOfObject(saved.connection, 'saved plan');
  } catch (error) {
    return (error as Error).message;
  }
  const expected = connectionWithoutTheFile(saved.stack, path.resolve(io.cwd, output ?? configuredOutputDir(io.cwd)));
  if (typeof expected === 'string') return expected;
  const fromFile = named === undefined ? environmentSettings(io.env) : settingsOf(named);
  const fromRun = expected.connection === undefined ? environmentSettings(io.env) : settingsOf(expected.connection);
  if (sameSettings(fromFile, fromRun)) return undefined;
  return `the saved plan names the service ${describe(fromFile)} for stack ${saved.stack}, but ${expected.source} names ${describe(fromRun)}, ` +
    'so nothing was sent: a plan is applied only against the service the code or the environment names (the file is not trusted before its MAC is checked, and that check reads the key from the service). ' +
    'Synthesize the code the plan was made from first (`secretform synth`, or name its output with --output) in the environment it was made in, or make a new plan (`secretform plan --out PLANFILE`)';
}

/** The stack's connection in the existing synth output, if it holds the stack; else the environment's (none). */
function connectionWithoutTheFile(stack: string, outdir: string): { connection?: DesiredConnection; source: string } | string {
  let stacks: string[];
  try {
    stacks = listSynthesizedStacks(outdir);
  } catch {
    // No synth output (a fresh checkout): the environment says where the run goes.
    return { source: `the environment (SERVICE_ADDR, ${ENVIRONMENT_TOKEN_VARIABLE}; no synth output in ${outdir})` };
  }
  if (!stacks.includes(stack)) return { source: `the environment (SERVICE_ADDR, ${ENVIRONMENT_TOKEN_VARIABLE}; the synth output in ${outdir} has no stack ${stack})` };
  try {
    const { connection } = loadDesired(outdir, stack);
    return { connection, source: connection === undefined ? `the environment (stack ${stack} of ${outdir} has no ServiceConnection)` : `the synth output in ${outdir} (${connection.construct})` };
  } catch (error) {
    return `the connection of stack ${stack} cannot be read from the synth output to check the saved plan against it, so nothing was sent: ${(error as Error).message}`;
  }
}

function settingsOf(connection: DesiredConnection): ConnectionSettings {
  const { address, tokenEnv, caCertFile, clientCertFile, clientKeyFile, skipVerify } = connection;
  return { address, tokenEnv, caCertFile, clientCertFile, clientKeyFile, skipVerify };
}

/** What a stack without a ServiceConnection uses (as loadClientConfig reads it). */
function environmentSettings(env: NodeJS.ProcessEnv): ConnectionSettings {
  return {
    address: env.SERVICE_ADDR,
    tokenEnv: ENVIRONMENT_TOKEN_VARIABLE,
    caCertFile: env.SERVICE_CACERT,
    clientCertFile: env.SERVICE_CLIENT_CERT,
    clientKeyFile: env.SERVICE_CLIENT_KEY,
    skipVerify: env.SERVICE_SKIP_VERIFY === 'true' || env.SERVICE_SKIP_VERIFY === '1',
  };
}

function sameSettings(a: ConnectionSettings, b: ConnectionSettings): boolean {
  // An address is compared as written, but for a trailing slash (SERVICE_ADDR is often given with one).
  const address = (value?: string) => value?.replace(/\/+$/, '');
  return address(a.address) === address(b.address) && a.tokenEnv === b.tokenEnv && a.caCertFile === b.caCertFile &&
    a.clientCertFile === b.clientCertFile && a.clientKeyFile === b.clientKeyFile && a.skipVerify === b.skipVerify;
}

/** The address and token variable (never the token), and TLS settings when there are any. */
function describe(settings: ConnectionSettings): string {
  const tls = [
    settings.caCertFile !== undefined ? `caCertFile ${settings.caCertFile}` : '',
    settings.clientCertFile !== undefined ? `clientCertFile ${settings.clientCertFile}` : '',
    settings.clientKeyFile !== undefined ? `clientKeyFile ${settings.clientKeyFile}` : '',
    settings.skipVerify ? 'skipVerify' : '',
  ].filter((part) => part !== '');
  return `${settings.address ?? '(no address)'} with the token from ${settings.tokenEnv}${tls.length > 0 ? ` (${tls.join(', ')})` : ''}`;
}
