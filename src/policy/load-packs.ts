/**
 * Loading policy packs (`--policy SPEC`, cdktf.json's `"secretform": { "policies": [...] }`): `recommended` (built
 * in, runs in this process) or the path of a module whose default export is a list of policies. Pack files are
 * imported and run in the pack host (pack-host.ts), started only when there is one: with the synth child's
 * environment, a deadline, and everything they say scrubbed.
 */
import { isDenied, looksLikeCredential, synthEnvironment } from '../synth-environment';
import { DEFAULT_POLICY_TIMEOUT_MS, type HostedPolicy, type LoadedPolicies, type LoadedPolicy } from './loaded-policies';
import { packFile, PolicyLoadError } from './pack-module';
import { startPackHost } from './pack-host';
import { RECOMMENDED_PACK, RECOMMENDED_POLICIES } from './recommended';

export { PolicyLoadError } from './pack-module';

export interface PolicyLoadOptions {
  /** The environment the host's is chosen from, as the synth child's is (default: this process's). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Variables (or `PREFIX*`) the packs get on top of the process basics: the app's `--synth-env`. */
  readonly passEnv?: readonly string[];
  /** Variables that hold the stacks' secrets (`secretVariablesOfOutput`): never passed on, scrubbed everywhere. */
  readonly secretVariables?: ReadonlySet<string>;
  /** How long the packs may take to load, and to check one stack's plan (default DEFAULT_POLICY_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  /** Where the packs' console output goes (default: this process's stderr). */
  readonly output?: { write(chunk: string): unknown };
}

/**
 * Loads every pack, in order; the same spec twice counts once. Throws a PolicyLoadError naming the pack: a file
 * that is missing, fails to load or does not load in time, a default export that is not a list of policies, two
 * policies with one id. When a pack file was loaded, the result's `host` runs it: `await loaded.host?.close()`
 * stops it (it also ends with this process).
 */
export async function loadPolicyPacks(specs: readonly string[], cwd: string, options: PolicyLoadOptions = {}): Promise<LoadedPolicies> {
  const packs = [...new Set(specs.map((spec) => spec.trim()))];
  if (packs.includes('')) throw new PolicyLoadError('a policy pack must be "recommended" or the path of a JS/TS module; got an empty string');
  const timeoutMs = options.timeoutMs ?? DEFAULT_POLICY_TIMEOUT_MS;
  const files = packs.filter((pack) => pack !== RECOMMENDED_PACK);
  // Before any pack code runs: a missing file is a plain mistake.
  for (const pack of files) packFile(pack, cwd);
  const started = files.length === 0 ? undefined : await startPackHost({ packs: files, cwd, timeoutMs, ...hostEnvironment(options), output: options.output ?? process.stderr });
  const hosted = new Map<string, HostedPolicy[]>(files.map((pack) => [pack, []]));
  for (const [hostIndex, { pack, id, description, enforcement, resourceTypes }] of (started?.policies ?? []).entries()) {
    hosted.get(files[pack])!.push({ id, description, enforcement, ...(resourceTypes !== undefined ? { resourceTypes } : {}), hostIndex });
  }
  const policies: LoadedPolicy[] = [];
  const origin = new Map<string, string>();
  for (const pack of packs) {
    for (const policy of pack === RECOMMENDED_PACK ? RECOMMENDED_POLICIES : hosted.get(pack)!) {
      const earlier = origin.get(policy.id);
      if (earlier !== undefined) {
        await started?.host.close();
        throw new PolicyLoadError(`policy pack ${pack}: policy id "${policy.id}" is also defined by ${earlier === pack ? 'this pack' : `pack ${earlier}`}; ids must be unique across the packs of a run (rename one)`);
      }
      origin.set(policy.id, pack);
      policies.push({ policy, pack });
    }
  }
  return { packs, policies, timeoutMs, ...(started !== undefined ? { host: started.host } : {}) };
}

/**
 * Shorter values are not taken as secrets here: a scrubber removes every occurrence of the value itself, and a
 * one-letter test key would take every "k" out of every message. The run's own scrubbing (the client's: the
 * token and every secret value of the stack, whatever their length) still applies to what policies say.
 */
const MIN_SECRET_LENGTH = 4;

/**
 * The host's environment (the synth child's rule), and the secrets known before any run: the values of the
 * variables it is denied that hold a credential (the token, the state key, a stack's secret variables).
 */
function hostEnvironment(options: PolicyLoadOptions): { env: Record<string, string>; secrets: string[] } {
  const source = options.env ?? process.env;
  const secretVariables = options.secretVariables ?? new Set<string>();
  const secrets = Object.entries(source).flatMap(([name, value]) =>
    value !== undefined && value.length >= MIN_SECRET_LENGTH && isDenied(name, secretVariables) && (secretVariables.has(name) || looksLikeCredential(name)) ? [value] : []);
  return { env: synthEnvironment({ source, passEnv: options.passEnv, secretVariables }), secrets };
}
