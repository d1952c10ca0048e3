/** The policies a run evaluates, each with the pack it came from, and the packs as given (for a saved plan). */
import type { Policy } from './policy';

export interface LoadedPolicies {
  /** The pack specs as given (`recommended`, or a module path relative to the project directory), in order. */
  readonly packs: readonly string[];
  readonly policies: readonly { readonly policy: Policy; readonly pack: string }[];
}
