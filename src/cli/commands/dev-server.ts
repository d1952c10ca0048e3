import type { Command } from 'commander';
import { DEFAULT_PORT } from '../../devserver/default-port';
import type { DevServerOptions } from '../../devserver/server';
import type * as seed from '../../devserver/seed';
import { startDevServer } from '../../start-dev-server';
import { CommandFailure, type CommandEnd } from '../run/command-failure';
import type { CommandOutcome } from '../run/command-outcome';
import { addEnvironmentHelp } from '../run/environment-variables';

interface DevServerFlags {
  host: string;
  port: string;
  rootToken?: string;
  seed?: string;
  /** false with `--no-defaults`: start from the seed file alone (or empty). */
  defaults: boolean;
  latencyMs?: string;
  failureRate?: string;
  failureStatus?: string;
}

/** `secretform dev-server`: runs the service emulator until SIGINT or SIGTERM. */
export function registerDevServerCommand(program: Command, outcome: CommandOutcome): void {
  addEnvironmentHelp(program.command('dev-server'), ['SECRETFORM_DEV_ROOT_TOKEN'])
    .description('run the built-in dev server (an in-memory emulation of the service)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free port)', String(DEFAULT_PORT))
    .option('--root-token <token>', 'root token (default: $SECRETFORM_DEV_ROOT_TOKEN or "root")')
    .option('--seed <file>', 'JSON seed file (mounts, kv secrets, directory entries, password policies), added to the defaults')
    .option('--no-defaults', 'start without the default `secret` mount and directory (only what --seed gives)')
    .option('--latency-ms <ms>', 'latency added before every response')
    .option('--failure-rate <rate>', 'share of requests (0..1) answered with an injected failure')
    .option('--failure-status <status>', 'HTTP status of injected failures (default 503)')
    .action(async (flags: DevServerFlags) => {
      outcome.end = await runDevServer(flags);
    });
}

/** dev-server has always led its failures with its own name. */
function devServerFailure(message: string): CommandFailure {
  return new CommandFailure('failed', message, {}, 1, 'secretform dev-server');
}

async function runDevServer(flags: DevServerFlags): Promise<CommandEnd> {
  let settings: Parameters<typeof startDevServer>[0];
  try {
    settings = {
      host: flags.host,
      port: integerFlag('--port', flags.port, 0, 65535)!,
      rootToken: rootToken(flags.rootToken),
      ...seedSettings(flags),
      latencyMs: integerFlag('--latency-ms', flags.latencyMs, 0, 600_000),
      failureRate: rateFlag(flags.failureRate),
      failureStatus: integerFlag('--failure-status', flags.failureStatus, 400, 599),
    };
  } catch (error) {
    return devServerFailure((error as Error).message);
  }

  let server: Awaited<ReturnType<typeof startDevServer>>;
  try {
    server = await startDevServer(settings);
  } catch (error) {
    return devServerFailure(`cannot start: ${(error as Error).message}`);
  }
  process.stdout.write(`dev server listening on ${server.url} (root token: ${server.rootToken})\n`);

  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
  // What a test or a bench run against this process reads to check a client's request budget at the server.
  process.stdout.write(`dev server stopped: ${server.requestCount} requests handled, at most ${server.inFlight.max} in flight at once\n`);
  return 0;
}

/** The seed file on top of the defaults; `--no-defaults` alone starts empty. */
function seedSettings(flags: DevServerFlags): Pick<DevServerOptions, 'seed' | 'seedAddsToDefaults' | 'seedSource'> {
  if (flags.seed === undefined) return flags.defaults ? {} : { seed: {} };
  return { seed: loadSeedFile(flags.seed), seedAddsToDefaults: flags.defaults, seedSource: `seed file ${flags.seed}` };
}

/**
 * The seed file's reader, loaded when a seed is given: registering the command (as `secretform --help` does for
 * every command) loads neither the server nor zod.
 */
function loadSeedFile(file: string): DevServerOptions['seed'] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a top-level import would load zod with every command's help
  return (require('../../devserver/seed') as typeof seed).loadSeedFile(file);
}

function rootToken(flag: string | undefined): string {
  const token = flag ?? process.env.SECRETFORM_DEV_ROOT_TOKEN ?? 'root';
  if (token.trim() === '') throw new Error('--root-token (or SECRETFORM_DEV_ROOT_TOKEN) must not be empty');
  return token;
}

function integerFlag(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) {
    throw new Error(`${name} must be an integer between ${min} and ${max}, got "${value}"`);
  }
  return Number(value);
}

function rateFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const rate = Number(value);
  if (value.trim() === '' || !Number.isFinite(rate) || rate < 0 || rate > 1) {
    throw new Error(`--failure-rate must be a number between 0 and 1, got "${value}"`);
  }
  return rate;
}

