import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { markdownPartPath, MARKDOWN_PART_DIVIDER, parseFormat, writePlanReport } from '../../src/cli/views/plan-report';
import { stackReport } from '../../src/report';
import { UsageError } from '../../src/cli/run/usage-error';
import { fakeIo } from './cli-fake-io';
import { emptyPlan, fullPlan, largePlan } from './report-plan-fixture';

// eslint-disable-next-line no-control-regex -- matches the ESC that starts an ANSI colour sequence
const ANSI = /\x1b\[/;

describe('parseFormat', () => {
  test('accepts text, markdown and json', () => {
    expect(['text', 'markdown', 'json'].map(parseFormat)).toEqual(['text', 'markdown', 'json']);
  });

  test('rejects anything else naming the allowed values', () => {
    expect(() => parseFormat('yaml')).toThrow(UsageError);
    expect(() => parseFormat('JSON')).toThrow('--format must be one of text, markdown, json; got "JSON"');
  });
});

describe('markdownPartPath', () => {
  test('keeps the first part at PATH and numbers the others before .md', () => {
    expect(markdownPartPath('out/plan.md', 1)).toBe('out/plan.md');
    expect(markdownPartPath('out/plan.md', 2)).toBe('out/plan.2.md');
    expect(markdownPartPath('out/plan.MD', 3)).toBe('out/plan.3.md');
    expect(markdownPartPath('comment', 2)).toBe('comment.2.md');
  });
});

describe('writePlanReport', () => {
  test('writes text to stdout, coloured only on a terminal without NO_COLOR', async () => {
    const piped = fakeIo();
    await writePlanReport([stackReport(fullPlan())], 'text', undefined, piped);
    expect(piped.stdout.text).toContain('Plan: ');
    expect(piped.stdout.text).not.toMatch(ANSI);

    const terminal = fakeIo({ tty: true });
    await writePlanReport([stackReport(fullPlan())], 'text', undefined, terminal);
    expect(terminal.stdout.text).toMatch(ANSI);

    const noColor = fakeIo({ tty: true, env: { NO_COLOR: '1' } });
    await writePlanReport([stackReport(fullPlan())], 'text', undefined, noColor);
    expect(noColor.stdout.text).not.toMatch(ANSI);
    expect(noColor.stdout.text).toBe(piped.stdout.text);
  });

  test('writes JSON that parses to the interface shape', async () => {
    const io = fakeIo();
    await writePlanReport([stackReport(fullPlan())], 'json', undefined, io);
    const json = JSON.parse(io.stdout.text);
    expect(Object.keys(json)).toEqual(['format_version', 'stack', 'resource_changes', 'resource_drift', 'summary']);
    expect(json.stack).toBe('prod');
    expect(io.stderr.text).toBe('');
  });

  test('separates markdown parts on stdout with the divider line', async () => {
    const io = fakeIo();
    await writePlanReport([stackReport(largePlan(2000))], 'markdown', undefined, io);
    const parts = io.stdout.text.split(`\n${MARKDOWN_PART_DIVIDER}\n`);
    expect(parts.length).toBeGreaterThan(1);
    parts.forEach((part, i) => expect(part.trimStart().startsWith(`(part ${i + 1} of ${parts.length})`)).toBe(true));
    expect(io.stdout.text).toContain('prod/users/user-1999');
  });

  test('writes markdown parts to PATH, PATH.2.md, ... and removes parts a longer earlier plan left', async () => {
    const io = fakeIo();
    await writePlanReport([stackReport(largePlan(2000))], 'markdown', 'reports/plan.md', io);
    const first = readFileSync(join(io.cwd, 'reports', 'plan.md'), 'utf8');
    expect(first.startsWith('(part 1 of ')).toBe(true);
    const count = Number(/\(part 1 of (\d+)\)/.exec(first)![1]);
    expect(count).toBeGreaterThan(1);
    for (let i = 2; i <= count; i++) expect(existsSync(join(io.cwd, 'reports', `plan.${i}.md`))).toBe(true);
    expect(io.stderr.text).toContain(`Plan written in ${count} parts: reports/plan.md, reports/plan.2.md`);
    expect(io.stdout.text).toBe('');

    // A file past a gap in the numbering was not written by a run of this command: it stays.
    const unrelated = join(io.cwd, 'reports', `plan.${count + 5}.md`);
    writeFileSync(unrelated, 'not a part');
    await writePlanReport([stackReport(emptyPlan())], 'markdown', 'reports/plan.md', io);
    expect(readFileSync(join(io.cwd, 'reports', 'plan.md'), 'utf8')).toContain('**No changes**');
    for (let i = 2; i <= count; i++) expect(existsSync(join(io.cwd, 'reports', `plan.${i}.md`))).toBe(false);
    expect(existsSync(unrelated)).toBe(true);
  });

  test('writes text to a file without colour, even on a terminal', async () => {
    const io = fakeIo({ tty: true });
    await writePlanReport([stackReport(fullPlan())], 'text', 'plan.txt', io);
    const text = readFileSync(join(io.cwd, 'plan.txt'), 'utf8');
    expect(text).toContain('Plan: ');
    expect(text).not.toMatch(ANSI);
    expect(io.stderr.text).toBe('Plan written to plan.txt\n');
  });

  test('sends plan warnings to stderr when the report is not text on stdout', async () => {
    const warnings = ['the fingerprint of prod/ldap/config bindpass was made with another state key'];
    const json = fakeIo();
    await writePlanReport([stackReport(emptyPlan({ warnings }))], 'json', undefined, json);
    expect(json.stderr.text).toBe(`Warning: ${warnings[0]}\n`);

    const text = fakeIo();
    await writePlanReport([stackReport(emptyPlan({ warnings }))], 'text', undefined, text);
    expect(text.stderr.text).toBe('');
    expect(text.stdout.text).toContain(warnings[0]);
  });

  test('reports a file it cannot write', () => {
    const io = fakeIo();
    writeFileSync(join(io.cwd, 'blocker'), 'a file, not a directory');
    expect(() => writePlanReport([stackReport(emptyPlan())], 'json', 'blocker/plan.json', io)).toThrow(/blocker/);
  });
});
