/**
 * Override values of the constructs' carriers (the one plain entry per construct, stack.ts) that are put into the
 * stack's configuration after the framework has built it, instead of going through the framework.
 *
 * cdktf (and cdktn) walk every override value of every element several times at synth: the element's merge,
 * `resolve` of the element's fragment, the stack's merge and `resolve` of the whole configuration, allocating a
 * context per value. A carrier's values (its identity, its synthesized spec, its `depends_on`) are most of a
 * stack's configuration, so that walk was most of what the constructs cost at synth. A value that resolution
 * would return unchanged (inert-value.ts) has its override key recorded (by a carrier itself, override-keys.ts;
 * by an empty placeholder of the same kind through the framework for any other element) and is set in the built configuration by
 * `complete`: the file holds the same bytes, since the framework's JSON writer sorts keys. Anything else goes
 * through the framework as before, and nothing is deferred when the app writes HCL (written by another method).
 */
import type { TerraformElementLike } from './cdktf-adapter';
import { isInert, type TokenRules } from './inert-value';
import { isQuiet } from './override-keys';
import { isVirtual, type VirtualCarrier } from './virtual-carrier';

type Configuration = Record<string, unknown>;

export class DeferredOverrides {
  /**
   * Each element's deferred values as `[path, value, path, value, ...]`: an element has one to three, and the
   * list lives until the file is written (a Map each was a tenth of what the stack pass keeps per carrier).
   */
  private readonly byElement = new Map<Carrier, unknown[]>();

  /** `rules` undefined: nothing is deferred (HCL output). */
  constructor(private readonly rules: TokenRules | undefined) {}

  /**
   * Sets `value` at the override `path` of `element`: deferred when it is inert, else through the framework. A
   * virtual carrier's values are always deferred: it is made only for values its maker found inert.
   */
  set(element: Carrier, path: string, value: unknown): void {
    if (isVirtual(element)) {
      element.deferOverride(path);
      this.defer(element, path, value);
    } else if (this.rules !== undefined && isInert(value, this.rules)) {
      // A carrier records the key itself (override-keys.ts); any other element gets an empty placeholder through
      // the framework, which records its key.
      if (!isQuiet(element) || !element.deferOverride(path)) element.addOverride(path, Array.isArray(value) ? [] : {});
      this.defer(element, path, value);
    } else {
      element.addOverride(path, value);
      const values = this.byElement.get(element);
      const at = values === undefined ? -1 : indexOfPath(values, path);
      if (at >= 0) values!.splice(at, 2);
    }
  }

  private defer(element: Carrier, path: string, value: unknown): void {
    let values = this.byElement.get(element);
    if (values === undefined) this.byElement.set(element, (values = []));
    const at = indexOfPath(values, path);
    if (at < 0) values.push(path, value);
    else values[at + 1] = value;
  }

  /**
   * Puts every deferred value into `configuration`, the one the framework built for the elements' stack; a
   * virtual carrier's entry is made there first.
   */
  complete(configuration: Configuration): void {
    for (const [element, values] of this.byElement) {
      const entry = isVirtual(element) ? element.entryIn(configuration) : frameworkEntry(configuration, element);
      if (entry === undefined) continue;
      for (let at = 0; at < values.length; at += 2) setAt(entry, keysOf(values[at] as string), values[at + 1]);
    }
  }
}

/** An element whose override values are set here: a carrier construct (or the bridge step), or a virtual carrier. */
export type Carrier = TerraformElementLike | VirtualCarrier;

/** The entry the framework made for `element` in `configuration`, if any. */
function frameworkEntry(configuration: Configuration, element: TerraformElementLike): Configuration | undefined {
  const resources = configuration.resource as Record<string, Record<string, Configuration> | undefined> | undefined;
  return resources?.[element.terraformResourceType]?.[element.friendlyUniqueId];
}

/** Where `path` is in a list of `[path, value, ...]`, or -1. */
function indexOfPath(values: readonly unknown[], path: string): number {
  for (let at = 0; at < values.length; at += 2) if (values[at] === path) return at;
  return -1;
}

/** The parts of a dotted override path; a handful of paths (`input`, `//.secretform`, ...) serve every carrier. */
const pathKeys = new Map<string, readonly string[]>();

function keysOf(path: string): readonly string[] {
  let keys = pathKeys.get(path);
  if (keys === undefined) pathKeys.set(path, (keys = path.split('.')));
  return keys;
}

/** `target[keys[0]][keys[1]]... = value`, as the framework's `addOverride` sets a dotted path. */
function setAt(target: Configuration, keys: readonly string[], value: unknown): void {
  let current = target;
  for (let index = 0; index < keys.length - 1; index++) {
    const key = keys[index];
    const inner = current[key];
    if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) current[key] = {};
    current = current[key] as Configuration;
  }
  current[keys[keys.length - 1]] = value;
}
