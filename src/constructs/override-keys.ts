/**
 * The override keys the framework lists in a stack's `"//".metadata.overrides`, gathered in linear time for the
 * constructs' carriers (the one plain entry per construct, stack.ts).
 *
 * cdktf (and cdktn) record, per resource type, the top-level keys each resource set with `addOverride`, merging
 * every element's keys into the stack's list by copying the whole list so far (`[...list, ...keys]`): quadratic in
 * the number of keys of one type in one stack. A carrier sets two or three (`input`, `//`, `depends_on`), so one
 * stack of 10,000 constructs makes a list of about 29,000 entries copied 10,000 times, each copy a large-object
 * allocation: 10 to 14 s of CPU on a 2-core machine, against 0.25 s for 10,000 plain resources with one key each.
 *
 * So a carrier is made from a subclass of the framework's resource class whose `toMetadata()` leaves its keys out
 * of that merge, and once the framework has built the stack's configuration, `restoreOverrideKeys` puts each
 * carrier type's list back as the framework would have made it: every element's keys, in element order (the
 * framework's own order: the stack's tree depth first, without nested stacks).
 */
import type { IConstruct } from 'constructs';
import { isStack, type TerraformElementLike, type TerraformResourceClass } from './cdktf-adapter';

interface Metadata {
  overrides?: Record<string, unknown>;
}

interface QuietElement {
  /** The metadata the framework's class reports, override keys included. */
  ownMetadata(): Metadata;
}

const quietClasses = new WeakMap<TerraformResourceClass, TerraformResourceClass>();

/** The framework's resource class, reporting no override keys to the stack's metadata merge (see above). */
export function quietResourceClass(base: TerraformResourceClass): TerraformResourceClass {
  let quiet = quietClasses.get(base);
  if (!quiet) {
    type Base = new (...args: ConstructorParameters<TerraformResourceClass>) => TerraformElementLike & { toMetadata(): Metadata };
    // Made at run time from the class of the framework the app loaded (cdktf or cdktn): never imported.
    quiet = class QuietCarrier extends (base as unknown as Base) implements QuietElement {
      override toMetadata(): Metadata {
        // An undefined value is dropped by the framework's resolution: nothing is merged for the overrides.
        return { ...super.toMetadata(), overrides: undefined };
      }

      ownMetadata(): Metadata {
        return super.toMetadata();
      }
    };
    quietClasses.set(base, quiet);
  }
  return quiet;
}

function isQuiet(element: object): element is QuietElement {
  return typeof (element as Partial<QuietElement>).ownMetadata === 'function';
}

const TERRAFORM_ELEMENT = Symbol.for('cdktf/TerraformElement');

/** The stack's elements in the framework's order (its `terraformElements`: depth first, nested stacks left out). */
function elementsOf(node: IConstruct, into: IConstruct[] = []): IConstruct[] {
  if (TERRAFORM_ELEMENT in node) into.push(node);
  for (const child of node.node.children) {
    if (!isStack(child)) elementsOf(child, into);
  }
  return into;
}

/**
 * Puts the quiet carriers' override keys back into the list of each of `types` in the configuration the
 * framework built for `stack`, where the framework would have merged them. The other elements' keys are taken
 * from the framework's own list, in its order; any the walk did not account for stay at the end.
 */
export function restoreOverrideKeys(stack: IConstruct, configuration: Record<string, unknown>, types: ReadonlySet<string>): void {
  const metadata = (configuration['//'] as { metadata?: Metadata } | undefined)?.metadata;
  if (metadata === undefined || types.size === 0) return;
  const reported = elementsOf(stack).map((element) => {
    const quiet = isQuiet(element);
    const overrides = (quiet ? element.ownMetadata() : (element as unknown as { toMetadata(): Metadata }).toMetadata()).overrides;
    return { quiet, overrides };
  });
  for (const type of types) {
    const merged = metadata.overrides?.[type];
    const framework = Array.isArray(merged) ? (merged as unknown[]) : [];
    const list: unknown[] = [];
    let taken = 0;
    for (const { quiet, overrides } of reported) {
      const keys = overrides?.[type];
      if (!Array.isArray(keys)) continue;
      if (quiet) {
        for (const key of keys) list.push(key);
      } else {
        for (const key of framework.slice(taken, taken + keys.length)) list.push(key);
        taken += keys.length;
      }
    }
    for (const key of framework.slice(taken)) list.push(key);
    if (list.length === 0) continue;
    metadata.overrides = { ...metadata.overrides, [type]: list };
  }
}
