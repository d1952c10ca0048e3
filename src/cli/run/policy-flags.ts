/**
 * `--policy SPEC` (repeatable) on plan and apply, and `"secretform": { "policies": [...] }` in cdktf.json: the
 * policy packs of a run, cdktf.json's first, then the flags', loaded before anything is synthesized or sent.
 * Pack files run in the pack host (src/policy/pack-host.ts) with the app's environment (`--synth-env`), within
 * `--policy-timeout` (or SECRETFORM_POLICY_TIMEOUT; 60s by default).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { loadPolicyPacks, type LoadedPolicies } from '../../policy';
import { DEFAULT_POLICY_TIMEOUT_MS } from '../../policy/loaded-policies';
import { POLICY_TIMEOUT_FLAG, POLICY_TIMEOUT_VARIABLE } from '../../policy/timeout-advice';
import { secretVariablesOfOutput } from '../../synth-environment';
import { collectNames, configuredOutputDir, nonEmptyFlag } from './engine-flags';
import type { CliIo } from './io';
import { UsageError } from './usage-error';

export interface PolicyFlags {
  /** `--policy SPEC`, repeatable. */
  policy?: string[];
  /** `--policy-timeout DURATION`. */
  policyTimeout?: string;
  /** The app's `--synth-env` and `--output`, which the packs' environment follows (when the command has them). */
  synthEnv?: string[];
  output?: string;
}

export function addPolicyOption(command: Command): Command {
  return command
    .option(
      '--policy <spec>',
      'policy pack to evaluate: "recommended" or the path of a JS/TS module exporting a list of policies (repeatable; adds to cdktf.json\'s "secretform": { "policies": [...] })',
      collectNames,
    )
    .option(
      `${POLICY_TIMEOUT_FLAG} <duration>`,
      `how long policy pack files may take to load, and to check each stack's plan, before the run fails closed (e.g. 30s, 2m; default $${POLICY_TIMEOUT_VARIABLE}, else ${DEFAULT_POLICY_TIMEOUT_MS / 1000}s)`,
    );
}

/**
 * The packs of the run: cdktf.json's `secretform.policies`, then `--policy`, then `extra` (a saved plan's), each
 * once; undefined when there are none. Pack files get the environment the app's synth gets. Throws a UsageError
 * for a malformed setting, a PolicyLoadError for a pack that cannot be loaded.
 */
export async function loadRunPolicies(flags: PolicyFlags, io: CliIo, extra: readonly string[] = []): Promise<LoadedPolicies | undefined> {
  const specs = [...configuredPolicyPacks(io.cwd), ...(flags.policy ?? []).map((spec) => nonEmptyFlag('--policy', spec)!), ...extra];
  if (specs.length === 0) return undefined;
  const timeoutMs = policyTimeoutMs(flags.policyTimeout, io.env[POLICY_TIMEOUT_VARIABLE]);
  const outdir = path.resolve(io.cwd, flags.output ?? configuredOutputDir(io.cwd));
  return loadPolicyPacks(specs, io.cwd, {
    env: io.env,
    passEnv: (flags.synthEnv ?? []).map((name) => nonEmptyFlag('--synth-env', name)!),
    secretVariables: secretVariablesOfOutput(outdir),
    timeoutMs,
    output: io.stderr,
  });
}

/** `--policy-timeout`, else SECRETFORM_POLICY_TIMEOUT, else the default: a duration such as 2s, 500ms, 1m (a bare number is seconds). */
export function policyTimeoutMs(flag: string | undefined, variable: string | undefined): number {
  const [value, source] = flag !== undefined ? [flag, POLICY_TIMEOUT_FLAG] : variable !== undefined && variable.trim() !== '' ? [variable, POLICY_TIMEOUT_VARIABLE] : [undefined, ''];
  if (value === undefined) return DEFAULT_POLICY_TIMEOUT_MS;
  const text = value.trim();
  const parts = [...text.matchAll(/(\d+)(ms|s|m|h)/g)];
  const ms = /^\d+$/.test(text)
    ? Number(text) * 1000
    : parts.map((part) => part[0]).join('') === text ? parts.reduce((total, part) => total + Number(part[1]) * DURATION_UNITS_MS[part[2]], 0) : NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0) {
    throw new UsageError(`${source} must be a duration above zero such as 30s, 2m or 500ms, got "${value}"`);
  }
  return ms;
}

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `"secretform": { "policies": [...] }` of the project's cdktf.json (none when the file or the setting is absent). */
export function configuredPolicyPacks(cwd: string): string[] {
  const file = path.join(cwd, 'cdktf.json');
  let config: unknown;
  try {
    config = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    // A missing or unreadable cdktf.json has no policies; synth reports a broken one.
    return [];
  }
  const settings = (config as { secretform?: { policies?: unknown } | null } | null)?.secretform;
  const policies = settings?.policies;
  if (policies === undefined) return [];
  if (!Array.isArray(policies) || policies.some((spec) => typeof spec !== 'string' || spec.trim() === '')) {
    throw new UsageError(`${file}: "secretform": { "policies": ... } must be a list of pack names ("recommended") or module paths, got ${JSON.stringify(policies)}`);
  }
  return policies as string[];
}
