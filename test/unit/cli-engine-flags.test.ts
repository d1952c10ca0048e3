import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { registerActionCommand } from '../../src/cli/commands/action';
import { registerExecCommand } from '../../src/cli/commands/exec';
import { registerGraphCommand } from '../../src/cli/commands/graph';
import { registerImportCommand } from '../../src/cli/commands/import';
import { registerPlanCommand } from '../../src/cli/commands/plan';
import {
  addStateLocationOptions, configuredOutputDir, ONLY_STACK, engineOptions, parseEngineFlags, parseLockTimeout, parseParallelism, parseRunTimeout, prepareSynthOutput, type EngineFlags,
  type EngineSettings,
} from '../../src/cli/run/engine-flags';
import type { CommandRegistration } from '../../src/cli/run/command-outcome';
import { UsageError } from '../../src/cli/run/usage-error';
import { fakeIo } from './cli-fake-io';
import { tempDir } from '../support/temp-dir';

const defaults: EngineFlags = { target: [], parallelism: '10', synth: true };

describe('parseParallelism', () => {
  test('accepts positive integers', () => {
    expect(parseParallelism('1')).toBe(1);
    expect(parseParallelism('10')).toBe(10);
    expect(parseParallelism(' 32 ')).toBe(32);
  });

  test.each(['0', '-1', '2.5', 'ten', '', '1e3', '99999999999999999999'])('rejects "%s" naming the flag and the value', (value) => {
    expect(() => parseParallelism(value)).toThrow(UsageError);
    expect(() => parseParallelism(value)).toThrow(`--parallelism must be a positive integer (1, 2, ...), got "${value}"`);
  });
});

describe('parseRunTimeout (--timeout)', () => {
  test('takes the durations --lock-timeout takes; absent is the engine default', () => {
    expect(parseRunTimeout(undefined)).toBeUndefined();
    expect(parseRunTimeout('90s')).toBe(90_000);
    expect(parseRunTimeout('1h30m')).toBe(5_400_000);
    expect(parseRunTimeout('5')).toBe(5000);
  });

  test('refuses zero and what is not a duration, naming the flag', () => {
    expect(() => parseRunTimeout('0s')).toThrow('--timeout must be longer than 0 (the run could send no request), got "0s"');
    expect(() => parseRunTimeout('soon')).toThrow('--timeout must be a duration such as 90s, 10m or 1h, got "soon"');
  });

  test('reaches the engine options as timeoutMs', () => {
    const settings = parseEngineFlags({ ...defaults, timeout: '2m' });
    expect(engineOptions(settings, '/out', fakeIo({ cwd: '/project' })).timeoutMs).toBe(120_000);
    expect('timeoutMs' in engineOptions(parseEngineFlags(defaults), '/out', fakeIo({ cwd: '/project' }))).toBe(false);
  });
});

describe('parseLockTimeout', () => {
  test('accepts durations (default 0s; a bare number is seconds)', () => {
    expect(parseLockTimeout(undefined)).toBe(0);
    expect(parseLockTimeout('0s')).toBe(0);
    expect(parseLockTimeout('500ms')).toBe(500);
    expect(parseLockTimeout('30s')).toBe(30_000);
    expect(parseLockTimeout('5m')).toBe(300_000);
    expect(parseLockTimeout('1h30m')).toBe(5_400_000);
    expect(parseLockTimeout('45')).toBe(45_000);
  });

  test.each(['', 'soon', '5 m', '-1s', '1.5s', '10d', 's'])('rejects "%s" naming the flag', (value) => {
    expect(() => parseLockTimeout(value)).toThrow(`--lock-timeout must be a duration such as 0s, 30s, 5m or 1h30m, got "${value}"`);
  });
});

describe('parseEngineFlags', () => {
  test('keeps every flag and collects repeated targets', () => {
    const settings = parseEngineFlags({ ...defaults, stack: 'prod', output: 'out', state: 's.json', lockTimeout: '1m30s', target: ['prod/a', 'prod/b'], parallelism: '3', app: 'node main.js', synthEnv: ['STAGE', 'APP_*'] });
    expect(settings).toEqual({ stack: 'prod', stacks: ['prod'], output: 'out', statePath: 's.json', lockTimeoutMs: 90_000, targets: ['prod/a', 'prod/b'], parallelism: 3, synth: true, app: 'node main.js', passEnv: ['STAGE', 'APP_*'], migrateState: false });
    expect(parseEngineFlags({ ...defaults, migrateState: true }).migrateState).toBe(true);
  });

  test('rejects --app together with --no-synth', () => {
    expect(() => parseEngineFlags({ ...defaults, synth: false, app: 'node main.js' })).toThrow('--app runs the app before the command, so it cannot be combined with --no-synth');
  });

  test('rejects empty values', () => {
    expect(() => parseEngineFlags({ ...defaults, stack: ' ' })).toThrow('--stack must not be empty');
    expect(() => parseEngineFlags({ ...defaults, target: ['prod/a', ''] })).toThrow('--target must not be empty');
  });
});

describe('engine options and the synth output directory', () => {
  test('resolve the state path against the project directory and leave targets out when none are given', () => {
    const io = fakeIo({ cwd: '/project', env: { SERVICE_ADDR: 'http://x' } });
    const options = engineOptions(parseEngineFlags({ ...defaults, state: 'state/prod.json' }), '/project/cdktf.out', io);
    expect(options).toEqual({
      stack: undefined,
      desired: { kind: 'synth-output', outdir: '/project/cdktf.out' },
      statePath: '/project/state/prod.json',
      lockTimeoutMs: 0,
      env: { SERVICE_ADDR: 'http://x' },
      cwd: '/project',
      parallelism: 10,
      targets: undefined,
    });
    expect(engineOptions(parseEngineFlags({ ...defaults, target: ['prod/a'] }), '/o', io).targets).toEqual(['prod/a']);
  });

  test('pass a PostgreSQL --state URL through unchanged (a path is resolved)', () => {
    const io = fakeIo({ cwd: '/project', env: {} });
    const url = 'postgres://team:pw@db:5432/infra?schema=prod';
    expect(engineOptions(parseEngineFlags({ ...defaults, state: url }), '/o', io).statePath).toBe(url);
    expect(engineOptions(parseEngineFlags({ ...defaults, state: 'postgresql://team@db/infra' }), '/o', io).statePath).toBe('postgresql://team@db/infra');
  });

  test('default to cdktf.json "output", else cdktf.out', () => {
    const dir = tempDir('cli-flags-');
    expect(configuredOutputDir(dir)).toBe('cdktf.out');
    writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ app: 'node main.js', output: 'synth-out' }));
    expect(configuredOutputDir(dir)).toBe('synth-out');
    writeFileSync(join(dir, 'cdktf.json'), '{ not json');
    expect(configuredOutputDir(dir)).toBe('cdktf.out');
  });

  test('with --no-synth, use --output or the configured directory without running anything', async () => {
    const io = fakeIo();
    writeFileSync(join(io.cwd, 'cdktf.json'), JSON.stringify({ app: 'exit 3', output: 'synth-out' }));
    expect(await prepareSynthOutput(parseEngineFlags({ ...defaults, synth: false }), io)).toBe(join(io.cwd, 'synth-out'));
    expect(await prepareSynthOutput(parseEngineFlags({ ...defaults, synth: false, output: 'other' }), io)).toBe(join(io.cwd, 'other'));
  });

  test('without --no-synth, run the app, sending its output to stderr so stdout stays clean', async () => {
    const io = fakeIo();
    writeFileSync(join(io.cwd, 'cdktf.json'), JSON.stringify({ app: 'echo app-says-hello; exit 3' }));
    await expect(prepareSynthOutput(parseEngineFlags(defaults), io)).rejects.toThrow('the app (echo app-says-hello; exit 3) failed with exit code 3');
    expect(io.stderr.text).toContain('app-says-hello');
    expect(io.stdout.text).toBe('');
  });
});

describe('the stack options of action, exec, import and graph', () => {
  const registrations: Record<string, CommandRegistration> = {
    plan: registerPlanCommand, action: registerActionCommand, exec: registerExecCommand, import: registerImportCommand, graph: registerGraphCommand,
  };

  /** The settings `secretform NAME ARGS` would run with (options only: the command's action does not run). */
  function settingsOf(name: string, args: string[]): EngineSettings {
    const program = new Command().exitOverride();
    registrations[name](program, { end: 0 });
    const command = program.commands.find((candidate) => candidate.name() === name)!;
    command.exitOverride().configureOutput({ writeErr: () => undefined });
    const parsed = command.parseOptions(args);
    expect(parsed.unknown).toEqual([]);
    return parseEngineFlags(command.opts<EngineFlags>());
  }

  function usageErrorOf(name: string, args: string[]): string | undefined {
    try {
      settingsOf(name, args);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  const stackArgs = ['--stack', 'prod', '--output', 'out', '--no-synth', '--synth-env', 'STAGE', '--synth-env', 'APP_*'];

  test.each(['action', 'exec', 'import'])('%s takes --stack, --output, --state and the synth options as plan does', (name) => {
    const args = [...stackArgs, '--state', 'postgres://team@db/infra'];
    expect(settingsOf(name, args)).toEqual(settingsOf('plan', args));
    expect(settingsOf(name, args)).toMatchObject({ stack: 'prod', output: 'out', statePath: 'postgres://team@db/infra', synth: false, passEnv: ['STAGE', 'APP_*'] });
  });

  test('action waits for the state lock (rotate-root records in state) as plan does', () => {
    expect(settingsOf('action', ['--lock-timeout', '90s'])).toEqual(settingsOf('plan', ['--lock-timeout', '90s']));
    expect(settingsOf('action', ['--lock-timeout', '90s']).lockTimeoutMs).toBe(90_000);
  });

  test('graph takes --stack, --output and the synth options as plan does (no state)', () => {
    expect(settingsOf('graph', stackArgs)).toEqual(settingsOf('plan', stackArgs));
  });

  test.each(['action', 'exec', 'import', 'graph'])('%s refuses what plan refuses, with the same message', (name) => {
    for (const args of [['--stack', ' '], ['--output', ''], ['--app', 'node main.js', '--no-synth'], ['--synth-env', ' ']]) {
      expect(usageErrorOf('plan', args)).toMatch(/must not be empty|cannot be combined with --no-synth/);
      expect(usageErrorOf(name, args)).toBe(usageErrorOf('plan', args));
    }
  });
});

describe('--stack given more than once', () => {
  test('plan keeps every --stack (names and patterns), in order', () => {
    const settings = parseEngineFlags({ ...defaults, stack: ['staging', 'prod-*'] });
    expect(settings.stacks).toEqual(['staging', 'prod-*']);
    expect(settings.stack).toBeUndefined();
  });

  test('a command of one stack refuses a second --stack instead of taking the last', async () => {
    const program = new Command().exitOverride();
    program.configureOutput({ writeErr: () => undefined });
    addStateLocationOptions(program.command('state-list'), ONLY_STACK).action(() => undefined);
    await expect(program.parseAsync(['node', 'x', 'state-list', '--stack', 'a', '--stack', 'b'])).rejects.toThrow('--stack was given twice ("a" and "b"); this command works on one stack');
  });
});
