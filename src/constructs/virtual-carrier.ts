/**
 * A construct's carrier (its one plain `terraform_data` / `null_resource` entry, stack.ts) that is not a construct
 * of the tree: secretform puts its entry into the configuration the framework built (`entryIn`), with the bytes
 * cdktf would have written for a carrier made from its generic resource class.
 *
 * A carrier construct costs what a plain cdktf resource costs (a node with its arrays, a logical id from a walk
 * up its scopes, its metadata and fragment each resolved, merged into the stack's configuration, resolved once
 * more as part of it, visited by every walk of the tree): at 10,000 constructs as much again as the plain app
 * the synth is measured against (issue 35). Every value of a carrier is inert (inert-value.ts: resolution would
 * return it as it is), so what cdktf would write for it is known without cdktf: `"//".metadata` (its path and
 * logical id), the values, and its override keys in the stack's metadata (override-keys.ts).
 *
 * Used only where nothing but that text can tell the difference: see `StackSupport.finalise` (cdktf's own JSON
 * synthesizer writing the file, the default logical ids, no aspect of the app's above the construct that could
 * have visited a carrier, every value inert).
 */
import type { QuietElement } from './override-keys';

type Configuration = Record<string, unknown>;

export class VirtualCarrier implements QuietElement {
  /** The top-level override keys, in the order first set (as a carrier construct records them). */
  private readonly keys: string[] = [];

  /**
   * @param terraformResourceType the carrier's type (`terraform_data`, `null_resource`)
   * @param friendlyUniqueId its logical id (carrier-id.ts)
   * @param path the construct path it would have had (the construct's own, then `/resource`)
   */
  constructor(
    readonly terraformResourceType: string,
    readonly friendlyUniqueId: string,
    readonly path: string,
  ) {}

  /** Records the top-level key of an override path; its value is put into the entry later (deferred-overrides.ts). */
  deferOverride(path: string): boolean {
    const dot = path.indexOf('.');
    const key = dot < 0 ? path : path.slice(0, dot);
    if (!this.keys.includes(key)) this.keys.push(key);
    return true;
  }

  overrideKeys(): readonly string[] {
    return this.keys;
  }

  /**
   * Makes the carrier's entry in `configuration` as cdktf's resource class would have made it before any override
   * value (a generic resource has no attributes of its own: only its metadata), and returns it.
   */
  entryIn(configuration: Configuration): Configuration {
    const resources = objectAt(configuration, 'resource');
    const ofType = objectAt(resources, this.terraformResourceType);
    const entry: Configuration = { '//': { metadata: { path: this.path, uniqueId: this.friendlyUniqueId } } };
    ofType[this.friendlyUniqueId] = entry;
    return entry;
  }
}

/** Whether a carrier is a virtual one (not a construct). */
export function isVirtual(carrier: object): carrier is VirtualCarrier {
  return carrier instanceof VirtualCarrier;
}

/** The object at `key` of `parent`, made when absent. */
function objectAt(parent: Configuration, key: string): Configuration {
  let value = parent[key];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) parent[key] = value = {};
  return value as Configuration;
}
