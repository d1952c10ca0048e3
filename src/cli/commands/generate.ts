/**
 * `secretform generate [--out-file PATH] [--stack NAME]`: writes the objects found on the service as a cdktf
 * app in TypeScript (stdout without --out-file), and says what it found, which environment variables the code
 * reads secrets from, and what it could not express.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { ServiceClient } from '../../client';
import { DEFAULT_GENERATED_STACK, generateApp } from '../../generate';
import { PROJECT_FILE, projectFileFor } from '../../generate/project-file';
import { writeFileAtomically } from '../../lazy-packages';
import { DEFAULT_PARALLELISM, parseParallelism } from '../run/engine-flags';
import { commandFailure, type CommandEnd } from '../run/command-failure';
import { processIo, writeWarning, type CliIo } from '../run/io';
import type { CommandOutcome } from '../run/command-outcome';
import { checkServiceEnvironment } from '../run/service-environment';
import { addEnvironmentHelp, SERVICE_VARIABLES } from '../run/environment-variables';

export interface GenerateFlags {
  outFile?: string;
  stack: string;
  parallelism: string;
}

export function registerGenerateCommand(program: Command, outcome: CommandOutcome): void {
  addEnvironmentHelp(program.command('generate'), SERVICE_VARIABLES)
    .description('write the objects on the service as a cdktf app (TypeScript) to adopt them')
    .option('--out-file <path>', 'file to write the app to (default: stdout); a cdktf.json is written beside it when there is none')
    .option('--stack <name>', 'name of the generated stack', DEFAULT_GENERATED_STACK)
    .option('--parallelism <n>', 'requests in flight at once to the service, shared by the whole run', String(DEFAULT_PARALLELISM))
    .action(async (flags: GenerateFlags) => {
      outcome.end = await runGenerate(flags, processIo());
    });
}

export async function runGenerate(flags: GenerateFlags, io: CliIo): Promise<CommandEnd> {
  let parallelism: number;
  try {
    parallelism = parseParallelism(flags.parallelism);
    if (!/^[A-Za-z0-9_-]+$/.test(flags.stack)) throw new Error(`--stack must be letters, digits, "-" or "_", got ${JSON.stringify(flags.stack)}`);
  } catch (error) {
    return commandFailure(error);
  }
  const problem = checkServiceEnvironment(io);
  if (problem !== undefined) return commandFailure(problem);
  const created = ServiceClient.fromEnv(io.env, { maxConnections: parallelism, stopAfterRunFailure: true });
  if (!created.ok) return commandFailure(`${created.error.variable}: ${created.error.message}`);
  const client = created.client;
  try {
    const generated = await generateApp(client, { stack: flags.stack, parallelism });
    if (!generated.ok) return commandFailure(generated.error);
    const app = generated.value;
    for (const warning of app.warnings) writeWarning(io, warning);
    const report = flags.outFile === undefined ? io.stderr : io.stdout;
    if (flags.outFile === undefined) io.stdout.write(app.source);
    else await writeFileAtomically(path.resolve(io.cwd, flags.outFile), app.source);
    report.write(`Generated ${app.constructCount} object${app.constructCount === 1 ? '' : 's'} in stack ${flags.stack}${flags.outFile === undefined ? '' : ` (${flags.outFile})`}.\n`);
    report.write(await projectFileNote(io, flags.outFile));
    if (app.variables.length > 0) {
      report.write(`Set these environment variables to the secrets' values before synth, import and plan:\n`);
      for (const variable of app.variables) report.write(`  ${variable.name}: ${variable.description}\n`);
    }
    if (app.unexpressed.length > 0) {
      report.write(`Not expressed (secretform cannot manage these; listed in the file's header):\n`);
      for (const line of app.unexpressed) report.write(`  ${line}\n`);
    }
    return 0;
  } catch (error) {
    return commandFailure(error);
  } finally {
    await client.close();
  }
}

/**
 * Writes cdktf.json beside the app when the folder has none, so `secretform synth` runs it as it stands, and
 * says so; an existing cdktf.json is the user's and is left alone. On stdout, says what file to write.
 */
async function projectFileNote(io: CliIo, outFile: string | undefined): Promise<string> {
  if (outFile === undefined) {
    return `Save the app as main.ts beside a ${PROJECT_FILE} such as ${JSON.stringify(JSON.parse(projectFileFor('main.ts')))} so that secretform synth runs it (needs tsx: npm install -D tsx).\n`;
  }
  const appPath = path.resolve(io.cwd, outFile);
  const projectPath = path.join(path.dirname(appPath), PROJECT_FILE);
  if (existsSync(projectPath)) return `${PROJECT_FILE} exists beside it and was left as it is: its "app" must run ${path.basename(appPath)}.\n`;
  await writeFileAtomically(projectPath, projectFileFor(path.basename(appPath)));
  return `Wrote ${path.relative(io.cwd, projectPath) || PROJECT_FILE}: secretform synth runs the app with node --import tsx (install tsx, cdktf, constructs and secretform in the project).\n`;
}
