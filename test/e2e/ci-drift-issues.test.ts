/**
 * The nightly drift workflow's issue keeping (examples/ci/secretform-drift.yml and drift-issues.mjs), fed the
 * reports of real drift checks: two stacks on the dev server, checked night after night as the workflow checks
 * them (`drift --detailed-exitcode --format markdown --json-out`), and the workflow's own "Keep one issue per
 * stack" step run by bash against a stand-in `gh` (the edge: GitHub's issues, kept in a JSON file). New drift
 * opens the stack's issue, drift still there updates its body, resolved drift closes it; drift already seen whose
 * issue someone closed opens none; a stack that could not be checked keeps its issue; the other stack's issue and
 * issues that only mention a marker are never touched.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { BOB_PASSWORD, cliEnv, createTwoStackProject, ROOT, runCli } from './cli-harness';
import { tempDir } from '../support/temp-dir';

// js-yaml comes with jest (through babel-plugin-istanbul); the project has no YAML dependency of its own.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml: { load(text: string): unknown } = require('js-yaml');

jest.setTimeout(240_000);

const CI_DIR = join(ROOT, 'examples', 'ci');
const SCRIPT = join(CI_DIR, 'drift-issues.mjs');

interface Issue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  labels: string[];
  comments: string[];
}

/**
 * `gh` as the workflow calls it, over issues in the JSON file $FAKE_GITHUB: `label create`, `issue list --label L
 * --state open --json number,body`, `issue create --title T --label L --body-file F`, `issue edit N --body-file F`,
 * `issue close N --comment C`. Anything else fails, so the workflow cannot call what the test does not model.
 */
const FAKE_GH = `#!/usr/bin/env node
const fs = require('node:fs');
const file = process.env.FAKE_GITHUB;
const issues = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : [];
const args = process.argv.slice(2);
const flag = (name) => { const at = args.indexOf(name); if (at === -1 || at + 1 >= args.length) throw new Error('gh: missing ' + name); return args[at + 1]; };
const issue = (number) => { const found = issues.find((candidate) => candidate.number === Number(number)); if (!found) throw new Error('gh: no issue ' + number); return found; };
fs.appendFileSync(file + '.calls', args.slice(0, 2).join(' ') + '\\n');
const [group, verb, number] = args;
if (group === 'label' && verb === 'create') {
} else if (group === 'issue' && verb === 'list') {
  if (flag('--state') !== 'open' || flag('--json') !== 'number,body') throw new Error('gh: unexpected list ' + args.join(' '));
  const label = flag('--label');
  process.stdout.write(JSON.stringify(issues.filter((candidate) => candidate.state === 'open' && candidate.labels.includes(label)).map(({ number, body }) => ({ number, body }))));
} else if (group === 'issue' && verb === 'create') {
  issues.push({ number: issues.length + 1, title: flag('--title'), body: fs.readFileSync(flag('--body-file'), 'utf8'), state: 'open', labels: [flag('--label')], comments: [] });
} else if (group === 'issue' && verb === 'edit') {
  issue(number).body = fs.readFileSync(flag('--body-file'), 'utf8');
} else if (group === 'issue' && verb === 'close') {
  issue(number).state = 'closed';
  issue(number).comments.push(flag('--comment'));
} else {
  throw new Error('gh: not modelled: ' + args.join(' '));
}
fs.writeFileSync(file, JSON.stringify(issues, null, 2));
`;

/**
 * Issues of the repository that are not this workflow's: another stack's name sharing a prefix, and a human's
 * issue that quotes blue's marker inside a sentence. Neither is blue's issue.
 */
const OTHER_ISSUES: readonly Issue[] = [
  { number: 1, title: 'drift of another app', body: '<!-- secretform:drift stack=blue-eu -->\nsomething', state: 'open', labels: ['drift'], comments: [] },
  { number: 2, title: 'how do markers work?', body: 'The workflow finds `<!-- secretform:drift stack=blue -->` in a body.', state: 'open', labels: ['drift'], comments: [] },
];

interface Step {
  name?: string;
  run?: string;
  env?: Record<string, string>;
}

/** The run script of the workflow's step that keeps the issues, as written. */
function issueStep(): string {
  const workflow = yaml.load(readFileSync(join(CI_DIR, 'secretform-drift.yml'), 'utf8')) as { jobs: Record<string, { steps: Step[] }> };
  const step = workflow.jobs.drift.steps.find((candidate) => candidate.name === 'Keep one issue per stack');
  if (step?.run === undefined) throw new Error('secretform-drift.yml has no step "Keep one issue per stack"');
  return step.run;
}

/** The drift check line of the workflow, as written. */
function driftLine(): string {
  const workflow = yaml.load(readFileSync(join(CI_DIR, 'secretform-drift.yml'), 'utf8')) as { jobs: Record<string, { steps: Step[] }> };
  const step = workflow.jobs.drift.steps.find((candidate) => candidate.name === 'Drift check');
  const line = step?.run?.split('\n').find((candidate) => candidate.trim().startsWith('npx secretform drift'));
  if (line === undefined) throw new Error('secretform-drift.yml has no `npx secretform drift` line in its step "Drift check"');
  return line.trim();
}

let server: DevServer;
beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'ci-drift-issues-root' });
});
afterAll(async () => {
  await server?.close();
});

describe('one issue per stack, kept by the nightly drift workflow', () => {
  let project: string;
  let work: string;
  let env: NodeJS.ProcessEnv;
  let github: string;
  let night = 0;

  beforeAll(async () => {
    project = createTwoStackProject();
    env = cliEnv(server, { SECRETFORM_STATE: undefined });
    expect((await runCli(['apply', '--stack', '*', '--auto-approve'], project, env)).code).toBe(0);
    work = tempDir('secretform-ci-drift-issues-');
    const bin = join(work, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'gh'), FAKE_GH);
    chmodSync(join(bin, 'gh'), 0o755);
    github = join(work, 'github.json');
    writeFileSync(github, JSON.stringify(OTHER_ISSUES));
  });

  const issues = () => JSON.parse(readFileSync(github, 'utf8')) as Issue[];
  const stackIssues = (stack: string) => issues().filter((issue) => issue.title === `secretform: drift in stack ${stack}`);

  /** One night: the workflow's drift check (its flags as written), then its issue step by bash. */
  async function nightlyRun(): Promise<{ code: number | null; decisions: string[] }> {
    night += 1;
    const dir = join(work, `night-${night}`);
    mkdirSync(dir);
    const stepEnv = { DRIFT_MARKDOWN: join(dir, 'secretform-drift.md'), DRIFT_JSON: join(dir, 'secretform-drift.json') };
    const words = driftLine().replace(/"\$(DRIFT_MARKDOWN|DRIFT_JSON)"/g, (_, name: keyof typeof stepEnv) => stepEnv[name]).split(/\s+/);
    expect(words.slice(0, 3)).toEqual(['npx', 'secretform', 'drift']);
    const check = await runCli([...words.slice(2), '--no-synth'], project, env);
    expect([0, 1, 2]).toContain(check.code);
    const runnerTemp = join(dir, 'runner-temp');
    mkdirSync(runnerTemp);
    const step = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', issueStep()], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { PATH: `${join(work, 'bin')}:${process.env.PATH}`, HOME: process.env.HOME, FAKE_GITHUB: github, RUNNER_TEMP: runnerTemp, RUN_URL: `https://github.example/acme/app/actions/runs/${night}`, GH_TOKEN: 'ghs_test', GH_REPO: 'acme/app', ...stepEnv },
    });
    if (step.status !== 0) throw new Error(`the issue step failed (${step.status}):\n${step.stderr}\n${step.stdout}`);
    return { code: check.code, decisions: step.stdout.split('\n').filter((line) => line.startsWith('stack ')) };
  }

  test('no drift: no issue; new drift: opened; still drifted: updated; resolved: closed; again: a new one', async () => {
    let run = await nightlyRun();
    expect(run).toEqual({ code: 0, decisions: ['stack blue: none', 'stack green: none'] });
    expect(issues()).toHaveLength(2);

    // New drift of blue: its issue is opened, its body blue's section of the markdown report.
    await call(server, 'POST', 'auth/blue-users/users/alice', { token_ttl: 7200 });
    run = await nightlyRun();
    expect(run).toEqual({ code: 2, decisions: ['stack blue: open', 'stack green: none'] });
    const [opened] = stackIssues('blue');
    expect(opened).toMatchObject({ number: 3, state: 'open', labels: ['drift'] });
    expect(opened.body.split('\n')[0]).toBe('<!-- secretform:drift stack=blue -->');
    expect(opened.body).toContain('## 🔴 New drift: stack `blue`');
    expect(opened.body).toContain('| `blue/alice` | `userpass_user` | `token_ttl` | new |');
    expect(opened.body).not.toContain('stack=green');
    expect(opened.body).toContain('Updated by [the nightly drift check](https://github.example/acme/app/actions/runs/2).');

    // Still drifted (known: the job passes): the same issue, its body replaced by this check.
    run = await nightlyRun();
    expect(run).toEqual({ code: 0, decisions: ['stack blue: update (issue 3)', 'stack green: none'] });
    expect(stackIssues('blue')).toEqual([expect.objectContaining({ number: 3, state: 'open' })]);
    expect(stackIssues('blue')[0].body).toContain('## 🟡 Known drift: stack `blue`');
    expect(stackIssues('blue')[0].body).toContain('| `blue/alice` | `userpass_user` | `token_ttl` | known |');
    expect(stackIssues('blue')[0].body).toContain('actions/runs/3');

    // Resolved: the body says so, and the issue is closed with a comment.
    expect((await runCli(['apply', '--stack', 'blue', '--auto-approve', '--no-synth'], project, env)).code).toBe(0);
    run = await nightlyRun();
    expect(run).toEqual({ code: 0, decisions: ['stack blue: close (issue 3)', 'stack green: none'] });
    const closed = stackIssues('blue')[0];
    expect(closed).toMatchObject({ number: 3, state: 'closed', comments: ['No drift in stack blue at the check of https://github.example/acme/app/actions/runs/4: resolved.'] });
    expect(closed.body).toContain('## ✅ No drift: stack `blue`');
    expect(closed.body).toContain('### Resolved since the previous check');

    // Drifted again (both stacks this time): each its own new issue; the closed one stays closed.
    await call(server, 'POST', 'auth/blue-users/users/alice', { token_ttl: 60 });
    await call(server, 'POST', 'auth/green-users/users/alice', { token_ttl: 60 });
    run = await nightlyRun();
    expect(run).toEqual({ code: 2, decisions: ['stack blue: open', 'stack green: open'] });
    expect(stackIssues('blue').map((issue) => [issue.number, issue.state])).toEqual([[3, 'closed'], [4, 'open']]);
    expect(stackIssues('green').map((issue) => [issue.number, issue.state])).toEqual([[5, 'open']]);
    expect(stackIssues('green')[0].body.split('\n')[0]).toBe('<!-- secretform:drift stack=green -->');
    expect(stackIssues('green')[0].body).not.toContain('stack=blue');

    // Someone closes green's issue while the drift stays: known drift opens none; further drift opens one.
    writeFileSync(github, JSON.stringify(issues().map((issue) => (issue.number === 5 ? { ...issue, state: 'closed' } : issue))));
    run = await nightlyRun();
    expect(run).toEqual({ code: 0, decisions: ['stack blue: update (issue 4)', 'stack green: none'] });
    await call(server, 'POST', 'auth/green-users/users/alice', { token_policies: ['default', 'admin'] });
    run = await nightlyRun();
    expect(run).toEqual({ code: 2, decisions: ['stack blue: update (issue 4)', 'stack green: open'] });
    expect(stackIssues('green')[1].body).toContain('| `green/alice` | `userpass_user` | `token_ttl`, `token_policies` | changed |');

    // A stack that cannot be checked (its state is damaged) keeps its issue as it is; the job fails (exit 1).
    const greenBody = stackIssues('green')[1].body;
    writeFileSync(join(project, '.secretform', 'green.state.json'), '{ not json');
    run = await nightlyRun();
    expect(run).toEqual({ code: 1, decisions: ['stack blue: update (issue 4)', 'stack green: keep (issue 6)'] });
    expect(stackIssues('green')[1]).toMatchObject({ state: 'open', body: greenBody });

    // The issues that are not this workflow's were never touched.
    expect(issues().slice(0, 2)).toEqual(OTHER_ISSUES);
    expect(readFileSync(`${github}.calls`, 'utf8')).not.toMatch(/issue (edit|close) [12]\b/);
    expect(readFileSync(`${github}.calls`, 'utf8') + JSON.stringify(issues())).not.toContain(BOB_PASSWORD);
  });

  test('a report longer than an issue body is cut to GitHub\'s limit, saying so', async () => {
    const dir = join(work, 'long');
    mkdirSync(dir);
    const json = join(dir, 'drift.json');
    const markdown = join(dir, 'drift.md');
    await call(server, 'POST', 'auth/blue-users/users/alice', { token_ttl: 1234 });
    const check = await runCli(['drift', '--stack', 'blue', '--format', 'markdown', '--out-file', markdown, '--json-out', json, '--no-synth', '--no-record'], project, env);
    expect(check.code).toBe(0);
    // A very long section: the same report with blue's table repeated (a stack of thousands of drifted objects).
    const report = readFileSync(markdown, 'utf8');
    const row = report.split('\n').find((line) => line.startsWith('| `blue/alice`'))!;
    writeFileSync(markdown, report.replace(row, Array.from({ length: 2000 }, () => row).join('\n')));
    const issuesFile = join(dir, 'issues.json');
    writeFileSync(issuesFile, JSON.stringify([{ number: 9, body: '<!-- secretform:drift stack=blue -->\r\nold body' }]));
    const decided = spawnSync(process.execPath, [SCRIPT, '--report', json, '--markdown', markdown, '--issues', issuesFile, '--bodies', join(dir, 'bodies')], { encoding: 'utf8' });
    expect(decided.stderr).toBe('');
    expect(decided.stdout).toBe(`update\tblue\t9\t${join(dir, 'bodies', 'stack-1.md')}\n`);
    const body = readFileSync(join(dir, 'bodies', 'stack-1.md'), 'utf8');
    expect(body.length).toBeLessThanOrEqual(65536);
    expect(body.length).toBeGreaterThan(60000);
    expect(body.startsWith('<!-- secretform:drift stack=blue -->\n')).toBe(true);
    expect(body).toMatch(/… \(cut: the report is longer than an issue body can be; the run's artifact has all of it\)\n$/);
  });

  test('reports that do not go together are refused, naming what is wrong', () => {
    const dir = join(work, 'mismatch');
    mkdirSync(dir);
    const json = join(work, 'night-1', 'secretform-drift.json');
    writeFileSync(join(dir, 'other.md'), '<!-- secretform:drift stack=red -->\n## ✅ No drift: stack `red`\n');
    writeFileSync(join(dir, 'issues.json'), '[]');
    const args = (markdown: string, report = json) => [SCRIPT, '--report', report, '--markdown', markdown, '--issues', join(dir, 'issues.json'), '--bodies', join(dir, 'bodies')];
    const mismatched = spawnSync(process.execPath, args(join(dir, 'other.md')), { encoding: 'utf8' });
    expect(mismatched.status).toBe(1);
    expect(mismatched.stderr).toBe('drift-issues: the markdown report has no section for stack blue (no line <!-- secretform:drift stack=blue -->): give the markdown report of the same check as the JSON report\n');
    const notReport = spawnSync(process.execPath, args(join(dir, 'other.md'), join(dir, 'issues.json')), { encoding: 'utf8' });
    expect(notReport.status).toBe(1);
    expect(notReport.stderr).toContain('is not a drift JSON report of format 1.x');
  });
});
