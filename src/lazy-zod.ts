/**
 * zod, loaded on first use. Loading it costs 55-85 ms of CPU and building the engine's schemas about 30 ms more,
 * on every command; yet well-formed synthesized specs and state files are read by the cheap checks of
 * json-shape.ts, and a schema is needed only to say what is wrong with a damaged file or to check a saved plan.
 * So the engine's schemas are built by `lazy` on their first call, and nothing on the plan path imports zod
 * but its types (`import type`, erased from the build). test/e2e/cli-startup.test.ts fails if a plan of
 * well-formed inputs loads it again.
 */
import type { z as Zod } from 'zod';

/** zod's `z`, loaded on the first call (Node caches the module: later calls cost a lookup). */
export function zod(): typeof Zod {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a top-level import would load zod with every command
  return (require('zod') as typeof import('zod')).z;
}

/**
 * A schema (or anything else `build` makes with zod), built on its first call and the same object afterwards:
 * `const entrySchema = lazy((z) => z.object({ ... }))`, used as `entrySchema().safeParse(value)`.
 */
export function lazy<T>(build: (z: typeof Zod) => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build(zod()) }).value;
}

/** The type a lazily built schema parses to: `Infer<typeof entrySchema>`. */
export type Infer<S extends () => Zod.ZodType> = Zod.infer<ReturnType<S>>;
