/**
 * The props a construct declares besides its fields (references to other constructs, the resource options),
 * described without zod: each says which values its schema certainly accepts (the plain check, props-check.ts)
 * and how to build that schema, which is built only when a construct's props fail the plain check. So an app
 * whose props are valid never loads zod (about 125 ms of CPU, 95 modules) nor builds the constructs' schemas.
 */
import type { z as Zod } from 'zod';

/** True only when the schema certainly accepts the value (false: zod decides). */
export type Accepts = (value: unknown) => boolean;

export interface PropDeclaration {
  readonly accepts: Accepts;
  /** The prop's zod schema, made with the `z` given (loaded on first use, lazy-zod.ts). */
  readonly schema: (z: typeof Zod) => Zod.ZodType;
}

/** A value `test` accepts (zod's `custom`: any truthy answer), else the message. */
export function customProp(test: (value: unknown) => unknown, message: string): PropDeclaration {
  return { accepts: (value) => Boolean(test(value)), schema: (z) => z.custom((value) => Boolean(test(value)), { message }) };
}

/** `prop`, or nothing. */
export function optionalProp(prop: PropDeclaration): PropDeclaration {
  return { accepts: (value) => value === undefined || prop.accepts(value), schema: (z) => prop.schema(z).optional() };
}

/** Any value. */
export const unknownProp: PropDeclaration = { accepts: () => true, schema: (z) => z.unknown() };

export const boolProp: PropDeclaration = { accepts: (value) => typeof value === 'boolean', schema: (z) => z.boolean() };

/** An array of strings (a hole is `undefined`, as zod reads it: refused). */
export const stringListProp: PropDeclaration = {
  accepts: (value) => {
    if (!Array.isArray(value)) return false;
    for (let index = 0; index < value.length; index++) {
      if (typeof value[index] !== 'string') return false;
    }
    return true;
  },
  schema: (z) => z.array(z.string()),
};

/** A prop whose checks only its zod schema makes: the plain check certainly accepts no value of it. */
export function zodOnlyProp(schema: (z: typeof Zod) => Zod.ZodType): PropDeclaration {
  return { accepts: () => false, schema };
}

/** A construct's props schema (props-schema.ts): the plain check, and the zod schema built on demand. */
export interface LazyPropsSchema {
  /** True only when the zod schema certainly accepts the props. */
  readonly check: (props: unknown) => boolean;
  /** The zod schema: built, and zod loaded, on the first call. */
  readonly zod: () => Zod.ZodObject;
}
