/**
 * `--policy SPEC` (repeatable) on plan and apply, and `"secretform": { "policies": [...] }` in cdktf.json: the
 * policy packs of a run, cdktf.json's first, then the flags', loaded before anything is synthesized or sent.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { loadPolicyPacks, type LoadedPolicies } from '../../policy';
import { collectNames, nonEmptyFlag } from './engine-flags';
import { UsageError } from './usage-error';

export interface PolicyFlags {
  /** `--policy SPEC`, repeatable. */
  policy?: string[];
}

export function addPolicyOption(command: Command): Command {
  return command.option(
    '--policy <spec>',
    'policy pack to evaluate: "recommended" or the path of a JS/TS module exporting a list of policies (repeatable; adds to cdktf.json\'s "secretform": { "policies": [...] })',
    collectNames,
  );
}

/**
 * The packs of the run: cdktf.json's `secretform.policies`, then `--policy`, then `extra` (a saved plan's), each
 * once; undefined when there are none. Throws a UsageError for a malformed setting, a PolicyLoadError for a
 * pack that cannot be loaded.
 */
export async function loadRunPolicies(flags: PolicyFlags, cwd: string, extra: readonly string[] = []): Promise<LoadedPolicies | undefined> {
  const specs = [...configuredPolicyPacks(cwd), ...(flags.policy ?? []).map((spec) => nonEmptyFlag('--policy', spec)!), ...extra];
  if (specs.length === 0) return undefined;
  return loadPolicyPacks(specs, cwd);
}

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
