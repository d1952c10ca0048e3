/**
 * `secretform action <operation> ADDRESS [--format text|json|env] [--ttl D] [--account NAME]... [--force]` and the
 * stack options: one operation on an object the stack manages (rotate-root, rotate-role, creds, check-out,
 * check-in, status, login). Which operations a type offers comes from the resource model.
 */
import type { Command } from 'commander';
import { runOperation } from '../../engine';
import { allResourceTypes } from '../../resources/registry';
import type { OperationName } from '../../resources/types';
import { ADDRESS_STACK, addLockTimeoutOption, addStateLocationOptions, addSynthOptions, collectNames, nonEmptyFlag, parseEngineFlags, type EngineFlags, type StateFlags } from '../run/engine-flags';
import { attempt, commandFailure, CommandFailure, type CommandEnd } from '../run/command-failure';
import { processIo, type CliIo } from '../run/io';
import type { CommandOutcome } from '../run/command-outcome';
import { oneStackOf, prepareOneStackRun } from '../run/stack-choice';
import { parseOperationFormat, renderAnswer } from '../views/operation-output';
import { UsageError } from '../run/usage-error';
import { addEnvironmentHelp, SERVICE_VARIABLES, STATE_VARIABLES, SYNTH_VARIABLES } from '../run/environment-variables';

/** Every operation some type offers, in the model's order. */
export function knownOperations(): OperationName[] {
  return [...new Set(allResourceTypes().flatMap((type) => type.operations.map((operation) => operation.name)))];
}

/** rotate-root holds the state lock while it records the rotation: `--lock-timeout` as for plan and apply. */
export interface ActionFlags extends StateFlags, Pick<EngineFlags, 'lockTimeout'> {
  format: string;
  ttl?: string;
  account?: string[];
  force?: boolean;
}

export function registerActionCommand(program: Command, outcome: CommandOutcome): void {
  addSynthOptions(
    addLockTimeoutOption(addStateLocationOptions(
      addEnvironmentHelp(program.command('action'), [...SERVICE_VARIABLES, ...STATE_VARIABLES, ...SYNTH_VARIABLES])
        .description(`run an operation on a managed object: ${knownOperations().join(', ')}`)
        .argument('<operation>', knownOperations().join(' | '))
        .argument('<address>', 'resource address in the code (construct path, e.g. prod/ldap/svc-role)'),
      ADDRESS_STACK,
    ))
      .option('--format <format>', 'output: text, json (one object) or env (export lines)', 'text')
      .option('--ttl <duration>', 'check-out: how long (capped by the set\'s ttl)')
      .option('--account <name>', 'check-in: an account to check in (repeatable)', collectNames)
      .option('--force', 'check-in: use the manage path (accounts checked out by anyone)'),
  )
    .action(async (operation: string, address: string, flags: ActionFlags) => {
      outcome.end = await runAction(operation, address, flags, processIo());
    });
}

export async function runAction(operationName: string, address: string, flags: ActionFlags, io: CliIo): Promise<CommandEnd> {
  let operation: OperationName;
  let format;
  let settings;
  try {
    operation = parseOperationName(operationName);
    nonEmptyFlag('ADDRESS', address);
    format = parseOperationFormat(flags.format);
    if (format === 'env' && !returnsCredentialsSomewhere(operation)) {
      throw new UsageError(`--format env is for operations that return credentials (${credentialOperations().join(', ')}), not ${operation}`);
    }
    // Without --stack, the address names its stack (its first segment), and so which connection to use.
    const parsed = parseEngineFlags(flags);
    settings = { ...parsed, stack: oneStackOf(parsed, 'action', address) };
  } catch (error) {
    return commandFailure(error);
  }
  const prepared = await prepareOneStackRun(settings, 'action', io);
  if (prepared instanceof CommandFailure) return prepared;
  const answered = await runOperation(prepared, { address, operation, ttl: flags.ttl, force: flags.force, accounts: flags.account });
  if (!answered.ok) return commandFailure(answered.error);
  // A resource type whose operation returns no credentials has nothing for --format env (known only now).
  const text = await attempt(() => renderAnswer(answered.value, format));
  if (text instanceof CommandFailure) return text;
  io.stdout.write(text);
  for (const note of answered.value.notes) io.stderr.write(`Note: ${note}\n`);
  return 0;
}

export function parseOperationName(value: string): OperationName {
  const known = knownOperations();
  if ((known as string[]).includes(value)) return value as OperationName;
  throw new UsageError(`unknown operation "${value}"; operations: ${known.join(', ')}`);
}

function credentialOperations(): OperationName[] {
  return knownOperations().filter(returnsCredentialsSomewhere);
}

function returnsCredentialsSomewhere(name: OperationName): boolean {
  return allResourceTypes().some((type) => type.operations.some((operation) => operation.name === name && operation.returnsCredentials));
}
