/**
 * The `npx secretform ...` lines of the example GitHub Actions workflows (examples/ci), and what the runner makes
 * of them: GitHub expressions resolved, then the line split into words as bash would. The tests that run the
 * workflows' commands through the real CLI read them from here, so what they run is what the workflow says.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// js-yaml comes with jest (through babel-plugin-istanbul); the project has no YAML dependency of its own.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml: { load(text: string): unknown } = require('js-yaml');

export const CI_DIR = join(__dirname, '..', '..', 'examples', 'ci');

export interface Step {
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
export interface Job {
  env?: Record<string, string>;
  steps: Step[];
}
export interface Workflow {
  name: string;
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

export function loadWorkflow(file: string): Workflow {
  return yaml.load(readFileSync(join(CI_DIR, file), 'utf8')) as Workflow;
}

export interface SecretformLine {
  workflow: string;
  job: string;
  step: string;
  line: string;
  /** The environment of the step as written (workflow, job and step `env:`), expressions unresolved. */
  env: Record<string, string>;
}

/** Every `npx secretform ...` line of a workflow's run steps. */
export function secretformLines(file: string): SecretformLine[] {
  const workflow = loadWorkflow(file);
  const lines: SecretformLine[] = [];
  for (const [jobName, job] of Object.entries(workflow.jobs)) {
    for (const step of job.steps) {
      if (step.run === undefined) continue;
      for (const line of step.run.split('\n')) {
        if (/^\s*npx\s+secretform\b/.test(line)) {
          lines.push({ workflow: file, job: jobName, step: step.name ?? step.run, line: line.trim(), env: { ...workflow.env, ...job.env, ...step.env } });
        }
      }
    }
  }
  return lines;
}

/** Replaces `${{ secrets.X }}`, `${{ env.X }}`, `${{ matrix.X }}` and `${{ github.x }}` as GitHub would, from `values`. */
export function resolveExpressions(text: string, values: { secrets: Record<string, string>; env: Record<string, string>; matrix?: Record<string, string> }): string {
  return text.replace(/\$\{\{\s*([a-z]+)\.([A-Za-z0-9_.]+)\s*\}\}/g, (whole, context: string, name: string) => {
    if (context === 'secrets') {
      if (values.secrets[name] === undefined) throw new Error(`no CI value for secrets.${name} (used in ${whole})`);
      return values.secrets[name];
    }
    if (context === 'env') return values.env[name] ?? '';
    if (context === 'matrix') {
      if (values.matrix?.[name] === undefined) throw new Error(`no matrix value for matrix.${name} (used in ${whole})`);
      return values.matrix[name];
    }
    if (context === 'github') return name === 'token' ? 'ghs_ci' : '1';
    throw new Error(`unexpected expression ${whole}`);
  });
}

/**
 * Splits a command line as bash would for the simple words the workflows use: double- or single-quoted words,
 * `$NAME` / `${NAME}` expanded from `env`. Anything more (pipes, redirections, substitutions, `;`) is refused, so
 * what the test runs is exactly what the runner runs.
 */
export function shellWords(line: string, env: Record<string, string>): string[] {
  const words: string[] = [];
  let current: string | undefined;
  const expand = (text: string) => text.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, name: string) => env[name] ?? '');
  const pattern = /\s+|"((?:[^"\\$`]|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)*)"|'([^']*)'|((?:[^\s"'|&;<>()`$\\]|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)+)|(.)/gy;
  for (const match of line.matchAll(pattern)) {
    if (match[4] !== undefined) throw new Error(`the workflow line uses shell syntax the test does not reproduce (${JSON.stringify(match[4])}): ${line}`);
    if (/^\s+$/.test(match[0])) {
      if (current !== undefined) words.push(current);
      current = undefined;
      continue;
    }
    const piece = match[1] !== undefined ? expand(match[1]) : match[2] !== undefined ? match[2] : expand(match[3]);
    current = (current ?? '') + piece;
  }
  if (current !== undefined) words.push(current);
  return words;
}

