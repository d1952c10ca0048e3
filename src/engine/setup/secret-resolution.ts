/** Resolves the secret references of the desired state before any request is made. */
import { resolveSecretValue, resolveWithoutReading } from '../../secret-value';
import type { DesiredResource } from './desired';
import { EngineError, fail, ok, type Result } from '../errors';

/** Resolved secret values by address, then field. Lives in memory only; never copied into a plan or state. */
export type ResolvedSecrets = ReadonlyMap<string, Readonly<Record<string, string>>>;

/** The values of an object without secrets (most objects): one shared, frozen record. */
const NO_SECRETS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Every secret of `resources`, resolved from its environment variable, file (relative to `cwd`) or in-memory
 * value. All failures are reported at once, each naming the address, the field and the variable or file.
 */
export async function resolveSecrets(
  resources: readonly DesiredResource[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<Result<ResolvedSecrets>> {
  const resolved = new Map<string, Readonly<Record<string, string>>>();
  const problems: string[] = [];
  const where = { cwd: options.cwd, env: options.env };
  for (const resource of resources) {
    let values: Record<string, string> | undefined;
    for (const field in resource.secrets) {
      const secret = resource.secrets[field];
      try {
        // A variable is read at once; only a file waits for its read.
        (values ??= {})[field] = resolveWithoutReading(secret, where) ?? (await resolveSecretValue(secret, where));
      } catch (error) {
        // resolveSecretValue's messages name the variable or file, never a value.
        problems.push(`${resource.address}: secret "${field}" (${secret.describe()}): ${(error as Error).message}`);
      }
    }
    resolved.set(resource.address, values ?? NO_SECRETS);
  }
  if (problems.length > 0) {
    return fail(new EngineError('secret_unresolved', `cannot resolve ${problems.length} secret${problems.length === 1 ? '' : 's'}:\n  ${problems.join('\n  ')}`));
  }
  return ok(resolved);
}
