/**
 * `secretform import ADDRESS ID`: adopts an existing object into state under an address of the code (the app is
 * synthesized first unless --no-synth, so the address's type and desired secrets are known).
 * `secretform import --all`: every resource of the code that is not in state and exists on the service.
 */
import type { Command } from 'commander';
import { importAll, importResource } from '../../engine';
import {
  addLockTimeoutOption, addStateLocationOptions, addSynthOptions, DEFAULT_PARALLELISM, nonEmptyFlag, parseEngineFlags,
  type EngineFlags, type EngineSettings, type StackChoiceHelp,
} from '../run/engine-flags';
import { commandFailure, CommandFailure, usageFailure, type CommandEnd } from '../run/command-failure';
import { processIo, type CliIo } from '../run/io';
import type { CommandOutcome } from '../run/command-outcome';
import { oneStackOf, prepareOneStackRun } from '../run/stack-choice';
import { addEnvironmentHelp, FINGERPRINT_VARIABLES, SERVICE_VARIABLES, STATE_VARIABLES, SYNTH_VARIABLES } from '../run/environment-variables';

/** The engine options without --target (an import takes its addresses from the code, or ADDRESS). */
export interface ImportFlags extends Omit<EngineFlags, 'target'> {
  all?: boolean;
}

/** import ADDRESS works on ADDRESS's stack; import --all, which has none, on the only one unless named. */
const IMPORT_STACK: StackChoiceHelp = { several: false, default: 'the stack ADDRESS starts with; with --all, the only stack of the synth output' };

export function registerImportCommand(program: Command, outcome: CommandOutcome): void {
  addSynthOptions(
    addLockTimeoutOption(addStateLocationOptions(
      addEnvironmentHelp(program.command('import'), [...SERVICE_VARIABLES, ...STATE_VARIABLES, ...FINGERPRINT_VARIABLES, ...SYNTH_VARIABLES])
        .description('adopt an existing object on the service into state')
        .argument('[address]', 'resource address in the code (construct path, e.g. prod/ldap/svc-role)')
        .argument('[id]', 'the object\'s identity on the service (e.g. ldap/static-role/svc)'),
      IMPORT_STACK,
    ))
      .option('--all', 'import every resource of the stack that exists on the service and is not in state')
      .option('--parallelism <n>', 'with --all: requests in flight at once to the service, shared by the whole run', String(DEFAULT_PARALLELISM)),
  )
    .action(async (address: string | undefined, id: string | undefined, flags: ImportFlags) => {
      if (flags.all) {
        outcome.end = address === undefined && id === undefined
          ? await runImportAll(flags, processIo())
          : usageFailure('import --all takes no ADDRESS or ID (it imports every resource of the stack)');
        return;
      }
      if (address === undefined || id === undefined) {
        outcome.end = usageFailure('import needs ADDRESS and ID (or --all)');
        return;
      }
      outcome.end = await runImport(address, id, flags, processIo());
    });
}

export async function runImport(address: string, id: string, flags: ImportFlags, io: CliIo): Promise<CommandEnd> {
  let settings: EngineSettings;
  try {
    nonEmptyFlag('ADDRESS', address);
    nonEmptyFlag('ID', id);
    // --parallelism is for --all: one import makes one read.
    // Without --stack, the address names its stack (its first segment), and so which connection to use.
    const parsed = parseEngineFlags({ ...flags, parallelism: undefined });
    settings = { ...parsed, stack: oneStackOf(parsed, 'import', address) };
  } catch (error) {
    return commandFailure(error);
  }
  const prepared = await prepareOneStackRun(settings, 'import', io);
  if (prepared instanceof CommandFailure) return prepared;
  const imported = await importResource(prepared, address, id);
  if (!imported.ok) return commandFailure(imported.error);
  const { value } = imported;
  io.stdout.write(`Imported ${value.id} as ${value.address} (${value.type}). It is now managed by secretform; run \`secretform plan\` to compare it with the code.\n`);
  return 0;
}

export async function runImportAll(flags: ImportFlags, io: CliIo): Promise<CommandEnd> {
  let settings: EngineSettings;
  try {
    const parsed = parseEngineFlags(flags);
    settings = { ...parsed, stack: oneStackOf(parsed, 'import --all') };
  } catch (error) {
    return commandFailure(error);
  }
  const prepared = await prepareOneStackRun(settings, 'import --all', io);
  if (prepared instanceof CommandFailure) return prepared;
  const result = await importAll(prepared);
  if (!result.ok) return commandFailure(result.error);
  const { imported, notFound, alreadyManaged } = result.value;
  for (const resource of imported) io.stdout.write(`Imported ${resource.id} as ${resource.address} (${resource.type}).\n`);
  for (const resource of notFound) io.stdout.write(`Not found on the service: ${resource.id} (${resource.address}); apply would create it.\n`);
  io.stdout.write(
    `${imported.length} imported, ${notFound.length} not found, ${alreadyManaged} already in state. Run \`secretform plan\` to compare the code with the service.\n`,
  );
  return 0;
}
