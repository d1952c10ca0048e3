/**
 * Every command's --help ends with an "Environment" section, made from one catalog
 * (src/cli/run/environment-variables.ts): here, that each section lists exactly what the command registered, that
 * every variable the code of src/ reads by name is in the catalog, and that the file the catalog says names a
 * variable does. test/e2e/cli-help-environment.test.ts runs each command and checks it reads what it lists.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { COMMAND_NAMES, createProgram } from '../../src/cli/main';
import { ENVIRONMENT_VARIABLES, variablesReadBy, type VariableName } from '../../src/cli/run/environment-variables';
import { SRC, sourceFiles } from '../support/import-graph';

// Registering `generate` loads prettier, whose ESM jest's VM cannot load; --help formats no code, so it never runs.
jest.mock('prettier', () => ({ format: () => Promise.reject(new Error('--help formats no code')) }));

/** Every command and subcommand, with its full name (`state rm`), as a user types it. */
function everyCommand(): { name: string; command: Command }[] {
  const program = createProgram('0.0.0', { end: 0 }, COMMAND_NAMES);
  const walk = (command: Command, prefix: string): { name: string; command: Command }[] =>
    command.commands.flatMap((sub) => [{ name: `${prefix}${sub.name()}`, command: sub }, ...walk(sub, `${prefix}${sub.name()} `)]);
  return walk(program, '');
}

function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk), getOutHelpWidth: () => 100 });
  command.outputHelp();
  return text;
}

/** The variables the help's Environment section lists (the first word of each of its item lines). */
function listedInHelp(help: string): string[] {
  const section = help.split('\nEnvironment:')[1] ?? '';
  return [...section.matchAll(/^ {2}([A-Z][A-Z0-9_]+)\b/gm)].map((match) => match[1]);
}

const COMMANDS = everyCommand();

test('every command and subcommand is covered, including those added later', () => {
  expect(COMMANDS.map(({ name }) => name)).toEqual(expect.arrayContaining(['version', 'plan', 'apply', 'destroy', 'graph', 'action', 'exec', 'state rm', 'drift ack', 'dev-server']));
});

test.each(COMMANDS.map(({ name, command }) => [name, command] as const))('%s --help ends with its Environment section', (name, command) => {
  const registered = variablesReadBy(command);
  expect({ name, registered: registered !== undefined }).toEqual({ name, registered: true });
  const help = helpOf(command);
  expect(help).toMatch(/\nEnvironment:/);
  expect(listedInHelp(help)).toEqual(registered);
  if (registered!.length === 0) expect(help).toContain('Environment: this command reads no environment variable of its own.');
});

test('each variable of the catalog is named in the file the catalog says reads it', () => {
  for (const [name, variable] of Object.entries(ENVIRONMENT_VARIABLES)) {
    const text = fs.readFileSync(path.join(SRC, variable.namedIn), 'utf8');
    expect({ name, named: text.includes(name) }).toEqual({ name, named: true });
  }
});

test('every SERVICE_* and SECRETFORM_* variable the code reads is in the catalog (or its line)', () => {
  const catalog = Object.entries(ENVIRONMENT_VARIABLES).map(([name, variable]) => `${name} ${variable.meaning}`).join('\n');
  const read = new Set<string>();
  for (const file of sourceFiles(SRC)) {
    const text = fs.readFileSync(file, 'utf8');
    // `env.NAME`, `env['NAME']`, `valueOf(env, 'NAME')`, and the constants the code reads through (`STATE_ENV = '...'`).
    for (const pattern of [/\benv\.([A-Z][A-Z0-9_]+)/g, /\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]/g, /valueOf\(env, '([A-Z][A-Z0-9_]+)'\)/g, /_(?:ENV|VARIABLE) = '([A-Z][A-Z0-9_]+)'/g]) {
      for (const match of text.matchAll(pattern)) read.add(match[1]);
    }
  }
  expect([...read].filter((name) => /^(SERVICE|SECRETFORM)_/.test(name)).length).toBeGreaterThan(8);
  const missing = [...read].filter((name) => !new RegExp(`\\b${name}\\b`).test(catalog)).sort();
  expect(missing).toEqual([]);
});

test('the commands that talk to the service list its variables; those that do not, none of them', () => {
  const listing = (name: string) => variablesReadBy(COMMANDS.find((entry) => entry.name === name)!.command) ?? [];
  const service: VariableName[] = ['SERVICE_ADDR', 'SERVICE_TOKEN'];
  for (const name of ['plan', 'apply', 'destroy', 'import', 'generate', 'drift', 'action', 'exec']) expect({ name, listed: listing(name) }).toEqual({ name, listed: expect.arrayContaining(service) });
  for (const name of ['synth', 'show', 'graph', 'state list', 'force-unlock', 'drift history', 'dev-server', 'version']) {
    expect({ name, listed: listing(name).filter((variable) => variable.startsWith('SERVICE_')) }).toEqual({ name, listed: [] });
  }
});
