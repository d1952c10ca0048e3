/**
 * The progress of a long apply and destroy, as an operator sees it: on a pipe (a CI log) exactly one numbered,
 * timed line per finished object and the total time; on a terminal (a pseudo-terminal from util-linux `script`)
 * also a live line redrawn in place, which leaves nothing behind once the run ends; over two stacks refreshing
 * at the same time, one refresh line counting both. The dev server answers every request after a delay, so the
 * run lasts long enough for the live line to be drawn.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { BIN, BOB_PASSWORD, cliEnv, createProject, createTwoStackProject, runCli, TWO_STACKS } from './cli-harness';

jest.setTimeout(120_000);

const USERS = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6'];
const SCRIPT = '/usr/bin/script';
// eslint-disable-next-line no-control-regex -- ESC starts every terminal control sequence; a CR redraws a line
const ESC_OR_CR = /[\r\x1b]/;

let server: DevServer;

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'cli-progress-root', latencyMs: 120 });
});

afterAll(async () => {
  await server?.close();
});

/** What a terminal shows at the end: `\r` + erase-line wipes the line being written, `\n` ends one. */
function screen(output: string): string[] {
  const lines: string[] = [];
  let current = '';
  // eslint-disable-next-line no-control-regex -- splits at the terminal's erase-line sequence, which starts with ESC
  for (const piece of output.replace(/\r\n/g, '\n').split(/(\r\x1b\[2K|\n)/)) {
    if (piece === '\r\x1b[2K') current = '';
    else if (piece === '\n') {
      lines.push(current);
      current = '';
    } else current += piece;
  }
  if (current !== '') lines.push(current);
  return lines;
}

/** Runs the CLI on a pseudo-terminal: stdout and stderr are both the terminal, as in an interactive shell. */
function runOnTerminal(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, BIN, ...args].map((word) => `'${word.replace(/'/g, "'\\''")}'`).join(' ');
  const child = spawn(SCRIPT, ['-qfec', command, '/dev/null'], { cwd, env: { ...env, TERM: 'xterm' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

/** Whether the pseudo-terminal tests can run: fails in CI without `script`, else skips with a warning. */
function haveTerminal(): boolean {
  if (existsSync(SCRIPT)) return true;
  if (process.env.CI === 'true') throw new Error(`${SCRIPT} (util-linux) is missing: the pseudo-terminal test cannot run; install util-linux`);
  console.warn(`skipped: ${SCRIPT} (util-linux) is missing, so no pseudo-terminal`);
  return false;
}

describe('progress of apply and destroy', () => {
  const project = createProject();

  test('on a pipe: one "[n/N] address: created (t s)" line per object, the summary and the total time, no control sequence', async () => {
    const runEnv = cliEnv(server, { SF_E2E_USERS: USERS.join(',') });
    const result = await runCli(['apply', '--auto-approve', '--parallelism', '2'], project, runEnv);
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).not.toMatch(ESC_OR_CR);
    expect(result.stdout + result.stderr).not.toContain(BOB_PASSWORD); // the users' password, from a file

    const lines = result.stdout.split('\n');
    const progress = lines.filter((line) => line.startsWith('['));
    const total = USERS.length + 2; // the users, their auth mount and the KV mount
    expect(progress).toHaveLength(total);
    progress.forEach((line, index) => {
      expect(line).toMatch(new RegExp(`^\\[${index + 1}/${total}\\] e2e/[a-z0-9/-]+: created \\(\\d+\\.\\d s\\)$`));
    });
    expect(lines.slice(-4)).toEqual(['', `Apply complete! Resources: ${total} added, 0 changed, 0 destroyed.`, expect.stringMatching(/^Total time: \d+\.\d s$/), '']);
  });

  test('on a terminal: a live line on stderr redrawn in place that leaves a clean screen', async () => {
    if (!haveTerminal()) return;
    const runEnv = cliEnv(server, { SF_E2E_USERS: USERS.join(',') });
    const { code, output } = await runOnTerminal(['destroy', '--auto-approve', '--no-synth', '--parallelism', '2'], project, runEnv);
    expect(code).toBe(0);
    expect(output).not.toContain(BOB_PASSWORD);

    // The live line: erased and redrawn with the spinner, the count, the operations in flight and the time.
    // eslint-disable-next-line no-control-regex -- the erase-line sequence starts with ESC
    expect(output).toMatch(/\r\x1b\[2K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Destroying \d\/8, \d in flight, \d+\.\d s elapsed/);
    // What stays on screen: each object's line whole, the summary, the total; no trace of the live line.
    const shown = screen(output);
    expect(shown.filter((line) => /Destroying|Refreshing/.test(line))).toEqual([]);
    const progress = shown.filter((line) => line.startsWith('['));
    expect(progress).toHaveLength(USERS.length + 2);
    progress.forEach((line, index) => expect(line).toMatch(new RegExp(`^\\[${index + 1}/8\\] e2e/[a-z0-9/-]+: destroyed \\(\\d+\\.\\d s\\)$`)));
    expect(shown).toContain('Destroy complete! Resources: 8 destroyed.');
    expect(shown[shown.length - 1]).toMatch(/^Total time: \d+\.\d s$/);
  });
});

describe('numbering over several stacks', () => {
  test('apply over two stacks numbers its objects once, [1/N] to [N/N], N the total of both from the first line', async () => {
    const project = createTwoStackProject();
    // green after blue: blue's operations all finish before green announces its own (where N used to grow).
    const app = join(project, 'main.js');
    writeFileSync(app, readFileSync(app, 'utf8').replace("const stack = new TerraformStack(app, name);", "const stack = new TerraformStack(app, name);\n  if (name === 'green') stack.addDependency(app.node.findChild('blue'));"));
    expect(readFileSync(app, 'utf8')).toContain('addDependency');
    const runEnv = cliEnv(server, { SF_E2E_USERS: 'alice' });
    const total = TWO_STACKS.length * 3; // per stack: a user, its auth mount and the KV mount
    const applied = await runCli(['apply', '--auto-approve', '--stack', '*'], project, runEnv);
    expect(applied.code).toBe(0);
    const numbers = applied.stdout.split('\n').filter((line) => line.startsWith('[')).map((line) => /^\[(\d+)\/(\d+)\]/.exec(line)!.slice(1).join('/'));
    expect(numbers).toEqual(Array.from({ length: total }, (_, index) => `${index + 1}/${total}`));
    const destroyed = await runCli(['destroy', '--auto-approve', '--stack', '*', '--no-synth'], project, runEnv);
    expect(destroyed.code).toBe(0);
    expect(destroyed.stdout.split('\n').filter((line) => line.startsWith('[')).map((line) => line.slice(0, 5))).toEqual(Array.from({ length: total }, (_, index) => `[${index + 1}/${total}]`));
  });
});

describe('refresh progress over several stacks', () => {
  test('on a terminal: one line sums the reads of the stacks refreshing at the same time and counts the stacks; on a pipe: no live line', async () => {
    if (!haveTerminal()) return;
    const project = createTwoStackProject();
    const runEnv = cliEnv(server, { SF_E2E_USERS: USERS.join(',') });
    const perStack = USERS.length + 2; // the users, their auth mount and the KV mount
    const { code, output } = await runOnTerminal(['plan', '--parallelism', '1'], project, runEnv);
    expect(code).toBe(0);
    expect(output).not.toContain(BOB_PASSWORD);

    // eslint-disable-next-line no-control-regex -- each draw follows the erase-line sequence, which starts with ESC
    const draws = [...output.matchAll(/\r\x1b\[2K(Refreshing [^\r\n\x1b]*)/g)].map((match) => match[1]);
    expect(draws.length).toBeGreaterThan(2);
    const counts = draws.map((draw) => {
      const match = /^Refreshing (\d+)\/(\d+), ([12]) stacks? running(?:, 1 done)?$/.exec(draw);
      if (match === null) throw new Error(`not a refresh line of a run over two stacks: ${JSON.stringify(draw)}`);
      return { done: Number(match[1]), total: Number(match[2]), running: Number(match[3]) };
    });
    // The sum over both stacks, which only grows: not one stack's count, then the other's.
    counts.slice(1).forEach((count, index) => {
      expect(count.done).toBeGreaterThanOrEqual(counts[index].done);
      expect(count.total).toBeGreaterThanOrEqual(counts[index].total);
    });
    expect(counts.every((count) => count.done < count.total && count.total <= TWO_STACKS.length * perStack)).toBe(true);
    expect(counts).toContainEqual(expect.objectContaining({ total: TWO_STACKS.length * perStack, running: 2 }));
    expect(screen(output).filter((line) => line.includes('Refreshing'))).toEqual([]);

    const piped = await runCli(['plan', '--no-synth', '--parallelism', '1'], project, runEnv);
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
    expect(piped.stdout).not.toMatch(ESC_OR_CR);
    expect(piped.stdout).toContain(`Total over 2 stacks: Plan: ${TWO_STACKS.length * perStack} to add`);
  });
});
