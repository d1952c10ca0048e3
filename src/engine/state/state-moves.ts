/** Renaming an address in state: what `state mv` does, and what apply does for a construct whose id changed. */
import type { ResourceState } from './state-file';
import { setOwn } from '../../own-keys';

/**
 * The resources with `from` renamed to `to`, and every dependency that names `from` pointing at `to`. The caller
 * checks that `from` exists and `to` does not.
 */
export function renameAddress(resources: Readonly<Record<string, ResourceState>>, from: string, to: string): Record<string, ResourceState> {
  const renamed: Record<string, ResourceState> = {};
  for (const [address, entry] of Object.entries(resources)) {
    const dependencies = entry.dependencies.includes(from) ? entry.dependencies.map((d) => (d === from ? to : d)) : entry.dependencies;
    setOwn(renamed, address === from ? to : address, dependencies === entry.dependencies ? entry : { ...entry, dependencies });
  }
  return renamed;
}

/**
 * Problems with an address given on the command line or read from a synth output: a construct path of the stack
 * (`<stack>/...`), so never a bare word like `constructor` or `__proto__`, and without a control character.
 */
export function addressProblem(address: string, stack: string): string | undefined {
  if (address.trim() === '') return 'is empty';
  if (!address.startsWith(`${stack}/`)) return `is not an address of stack ${stack} (addresses are construct paths: ${stack}/...)`;
  if (address.endsWith('/') || address.includes('//')) return 'has an empty path segment';
  // eslint-disable-next-line no-control-regex
  const unsafe = /['"`\\$%\u0000-\u001f\u007f-\u009f]/.exec(address);
  if (unsafe) return `contains ${JSON.stringify(unsafe[0])}, which no construct path holds`;
  return undefined;
}
