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
 *
 * A carrier also keeps its own list of top-level override keys, in the order first set, as the framework's
 * `Object.keys(rawOverrides)` would hold them: the keys it was given with `addOverride` and those of the values
 * put into the configuration after the framework built it (deferred-overrides.ts), which then need no empty
 * placeholder going through the framework's override merge and resolution (about 0.3 s of CPU at 10,000).
 */
import type { IConstruct } from 'constructs';
import { isStack, type TerraformElementLike, type TerraformResourceClass } from './cdktf-adapter';

interface Metadata {
  overrides?: Record<string, unknown>;
}

export interface QuietElement {
  /** The element's top-level override keys in the order first set (the framework's and the deferred values'). */
  overrideKeys(): readonly string[];
  /**
   * Records the top-level key of an override `path` whose value is put into the configuration later; false (and
   * nothing recorded) when that key was set through the framework: then the caller sets the placeholder there,
   * which replaces the framework's value as before.
   */
  deferOverride(path: string): boolean;
}

const quietClasses = new WeakMap<TerraformResourceClass, TerraformResourceClass>();

/** The framework's resource class, reporting no override keys to the stack's metadata merge (see above). */
export function quietResourceClass(base: TerraformResourceClass): TerraformResourceClass {
  let quiet = quietClasses.get(base);
  if (!quiet) {
    type Base = new (...args: ConstructorParameters<TerraformResourceClass>) => TerraformElementLike & { toMetadata(): Metadata };
    // Made at run time from the class of the framework the app loaded (cdktf or cdktn): never imported.
    quiet = class QuietCarrier extends (base as unknown as Base) implements QuietElement {
      /** Every top-level key, in the order first set (declared only: a field initialiser would run after the base constructor). */
      declare private keys: string[] | undefined;
      /** The keys set through the framework's `addOverride`. */
      declare private frameworkKeys: Set<string> | undefined;

      override toMetadata(): Metadata {
        // An undefined value is dropped by the framework's resolution: nothing is merged for the overrides.
        return { ...super.toMetadata(), overrides: undefined };
      }

      override addOverride(path: string, value: unknown): void {
        super.addOverride(path, value);
        const key = topLevelKey(path);
        (this.frameworkKeys ??= new Set()).add(key);
        this.note(key);
      }

      deferOverride(path: string): boolean {
        const key = topLevelKey(path);
        if (this.frameworkKeys?.has(key)) return false;
        this.note(key);
        return true;
      }

      overrideKeys(): readonly string[] {
        return this.keys ?? [];
      }

      private note(key: string): void {
        if (this.keys === undefined) this.keys = [key];
        else if (!this.keys.includes(key)) this.keys.push(key);
      }
    };
    quietClasses.set(base, quiet);
  }
  return quiet;
}

/** The framework's `addOverride` splits the path at every `.` and keys its raw overrides by the first part. */
function topLevelKey(path: string): string {
  return path.split('.')[0];
}

/** Whether `element` is a carrier made from `quietResourceClass`. */
export function isQuiet(element: object): element is QuietElement {
  return typeof (element as Partial<QuietElement>).overrideKeys === 'function';
}

/** An element's override keys as `restoreOverrideKeys` reads them: a carrier's own, or the framework's report. */
interface Reported {
  readonly quiet: boolean;
  readonly type: string | undefined;
  readonly keys: readonly string[] | undefined;
  readonly overrides: Record<string, unknown> | undefined;
}

const TERRAFORM_ELEMENT = Symbol.for('cdktf/TerraformElement');

/**
 * The stack's elements in the framework's order (its `terraformElements`: depth first, nested stacks left out),
 * a construct's virtual carrier where its carrier construct would be: its last child, made at synth.
 */
function elementsOf(node: IConstruct, virtualOf: VirtualCarriers, into: Array<IConstruct | TypedQuietElement> = []): Array<IConstruct | TypedQuietElement> {
  if (TERRAFORM_ELEMENT in node) into.push(node);
  for (const child of node.node.children) {
    if (!isStack(child)) elementsOf(child, virtualOf, into);
  }
  const virtual = virtualOf.get(node);
  if (virtual !== undefined) into.push(virtual);
  return into;
}

/** A carrier that is no construct (virtual-carrier.ts): its type and its override keys. */
interface TypedQuietElement extends QuietElement {
  readonly terraformResourceType: string;
}

/** The virtual carriers of a stack's constructs, by construct. */
export type VirtualCarriers = ReadonlyMap<IConstruct, TypedQuietElement>;

/**
 * Puts the quiet carriers' override keys back into the list of each of `types` in the configuration the
 * framework built for `stack`, where the framework would have merged them. The other elements' keys are taken
 * from the framework's own list, in its order; any the walk did not account for stay at the end.
 */
export function restoreOverrideKeys(stack: IConstruct, configuration: Record<string, unknown>, types: ReadonlySet<string>, virtualOf: VirtualCarriers = new Map()): void {
  const metadata = (configuration['//'] as { metadata?: Metadata } | undefined)?.metadata;
  if (metadata === undefined || types.size === 0) return;
  // What each element reports, as the framework's `toMetadata` would: a carrier its own keys under its type
  // (nothing when it has none), any other element its metadata's overrides. One entry per element of the stack:
  // no object of its own per carrier (a computed key made each a dictionary).
  const reported = elementsOf(stack, virtualOf).map((element): Reported => {
    if (!isQuiet(element)) return { quiet: false, type: undefined, keys: undefined, overrides: (element as unknown as { toMetadata(): Metadata }).toMetadata().overrides };
    return { quiet: true, type: (element as unknown as Pick<TerraformElementLike, 'terraformResourceType'>).terraformResourceType, keys: element.overrideKeys(), overrides: undefined };
  });
  for (const type of types) {
    const merged = metadata.overrides?.[type];
    const framework = Array.isArray(merged) ? (merged as unknown[]) : [];
    const list: unknown[] = [];
    let taken = 0;
    for (const entry of reported) {
      const keys = entry.quiet ? (entry.type === type && entry.keys!.length > 0 ? entry.keys : undefined) : entry.overrides?.[type];
      if (!Array.isArray(keys)) continue;
      if (entry.quiet) {
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
