/**
 * The variables a synthesized stack configuration names as holding secrets: those its `SecretValue.fromEnv`
 * references read, and the token variable its ServiceConnection names. Read leniently: an output that a later
 * synth replaces may be half-written or hold invalid markers, and a name missed here only loosens a denylist
 * whose prefixes still apply (synth-environment.ts).
 */
import { parseSecretReferenceJson } from './secret-value';
import { readSynthesizedConnection, specObjectsOf } from './synthesized-spec';

export function secretVariablesOfConfiguration(config: unknown): Set<string> {
  const names = new Set<string>();
  const tokenEnv = connectionTokenVariable(config);
  if (tokenEnv !== undefined) names.add(tokenEnv);
  for (const { object } of specObjectsOf(config)) {
    const secrets = (object as { secrets?: unknown } | null)?.secrets;
    if (typeof secrets !== 'object' || secrets === null) continue;
    for (const value of Object.values(secrets)) {
      const reference = parseSecretReferenceJson(value);
      if (reference && 'env' in reference) names.add(reference.env);
    }
  }
  return names;
}

/** The token variable a stack's connection names, read leniently (an invalid connection names none). */
function connectionTokenVariable(config: unknown): string | undefined {
  try {
    return readSynthesizedConnection(config, 'synth output')?.tokenEnv;
  } catch {
    return undefined;
  }
}
