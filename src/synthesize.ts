/**
 * Synthesis: runs the cdktf app named in cdktf.json (or `app`) the way `cdktf synth` does, so the app writes
 * `<output>/manifest.json` and `<output>/stacks/<stack>/cdk.tf.json`. No terraform and no network are involved.
 * `secretform synth` and the package's `synthesize` both call it.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readRecordedDigest } from './engine/setup/desired-digest-record';
import { secretVariablesOfStacks, synthEnvironment } from './synth-environment';

export interface SynthOptions {
  /** Command that runs the app; default: `app` of cdktf.json. */
  readonly app?: string;
  /** Output directory; default: `output` of cdktf.json, else `cdktf.out`. Relative to `cwd`. */
  readonly output?: string;
  /** Project directory (where cdktf.json is); default: the current directory. */
  readonly cwd?: string;
  /**
   * The environment the app's variables are chosen from (default: this process's); the app gets only what
   * `synthEnvironment` allows (process basics and `passEnv`, never SERVICE_*, SECRETFORM_* or a secret's variable).
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Variables (or `PREFIX*`) the app gets on top of the process basics (`--synth-env`). */
  readonly passEnv?: readonly string[];
  /** Where the app's output goes; default: this process's stdout and stderr. */
  readonly stdout?: NodeJS.WritableStream;
  readonly stderr?: NodeJS.WritableStream;
}

export interface SynthResult {
  /** Absolute output directory. */
  readonly outdir: string;
  /** Stacks the app synthesized. */
  readonly stacks: string[];
}

export class SynthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SynthError';
  }
}

interface CdktfConfig {
  app?: string;
  output?: string;
  context?: Record<string, unknown>;
}

function readCdktfConfig(cwd: string): CdktfConfig {
  const file = path.join(cwd, 'cdktf.json');
  if (!fs.existsSync(file)) return {};
  let config: unknown;
  try {
    config = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new SynthError(`${file}: not valid JSON: ${(error as Error).message}`);
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) throw new SynthError(`${file}: expected a JSON object`);
  const { app, output, context } = config as Record<string, unknown>;
  if (app !== undefined && typeof app !== 'string') throw new SynthError(`${file}: "app" must be a string (the command that runs the app)`);
  if (output !== undefined && typeof output !== 'string') throw new SynthError(`${file}: "output" must be a string (a directory)`);
  if (context !== undefined && (typeof context !== 'object' || context === null)) throw new SynthError(`${file}: "context" must be an object`);
  return { app, output, context: context as Record<string, unknown> | undefined };
}

/** Runs the app and returns the stacks it wrote. Throws a SynthError when the app fails or writes nothing. */
export async function synthesize(options: SynthOptions = {}): Promise<SynthResult> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const config = readCdktfConfig(cwd);
  const app = options.app ?? config.app;
  if (!app) throw new SynthError(`no app to run: pass --app "<command>" or set "app" in ${path.join(cwd, 'cdktf.json')}`);
  const outdir = path.resolve(cwd, options.output ?? config.output ?? 'cdktf.out');
  fs.mkdirSync(outdir, { recursive: true });
  // Read before the app rewrites the output: the variables its secrets came from last time.
  const secretVariables = secretVariablesOfPreviousOutput(outdir);
  const manifestPath = path.join(outdir, 'manifest.json');
  // A manifest left from an earlier run must not pass for this run's output.
  fs.rmSync(manifestPath, { force: true });

  const code = await runApp(app, cwd, {
    ...synthEnvironment({ source: options.env ?? process.env, passEnv: options.passEnv, secretVariables }),
    CDKTF_OUTDIR: outdir,
    CDKTF_CONTEXT_JSON: JSON.stringify(config.context ?? {}),
    CHECKPOINT_DISABLE: '1',
  }, options.stdout ?? process.stdout, options.stderr ?? process.stderr);
  if (code !== 0) throw new SynthError(`the app (${app}) failed with exit code ${code}; its output above says why`);
  if (!fs.existsSync(manifestPath)) {
    throw new SynthError(`the app (${app}) finished without writing ${manifestPath}: it must call app.synth()`);
  }
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as { stacks?: Record<string, unknown> };
  const stacks = Object.keys(manifest.stacks ?? {});
  removeStaleStacks(outdir, stacks);
  return { outdir, stacks };
}

function runApp(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, { cwd, env, shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    // As text (decoded whole characters): the CLI's terminal guard shows the control characters of text it writes,
    // and the app's messages quote construct paths (src/cli/run/terminal-output.ts).
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => stdout.write(chunk));
    child.stderr.on('data', (chunk: string) => stderr.write(chunk));
    child.on('error', (error) => reject(new SynthError(`cannot run the app (${command}): ${error.message}`)));
    child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/** Stack directories of earlier runs whose stack the app no longer defines (as `cdktf synth` does). */
function removeStaleStacks(outdir: string, stacks: string[]): void {
  const stacksDir = path.join(outdir, 'stacks');
  if (!fs.existsSync(stacksDir)) return;
  for (const entry of fs.readdirSync(stacksDir)) {
    if (!stacks.includes(entry)) fs.rmSync(path.join(stacksDir, entry), { recursive: true, force: true });
  }
}

/**
 * The variables that hold secrets in the output the previous synth left, for synth to withhold from the app it is
 * about to run (synth-environment.ts). A stack whose digest record still describes its `cdk.tf.json`
 * (desired-digest-record.ts) gives the names the record lists, so the file (150 MB at 100 stacks of 1,000
 * objects, about two seconds to parse) is not read. Both were written by the same earlier synth and the record
 * is used only while the file is the one it was made from, so it says what the file says; the app about to run
 * has written neither. Any other stack's file is parsed.
 */
export function secretVariablesOfPreviousOutput(outdir: string): Set<string> {
  return secretVariablesOfStacks(outdir, (stackDir) => readRecordedDigest(stackDir)?.secretVariables);
}
