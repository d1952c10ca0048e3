/**
 * Node's own `import()`: secretform is compiled to CommonJS, where TypeScript turns `import()` into `require()`,
 * which cannot load an ES module. A function made at run time keeps the real `import()`.
 *
 * A module of its own, kept out of the CLI's bundle (scripts/bundle-cli.js): the bundle runs as a `vm.Script`
 * with a code cache (bin/load-bundle.js), where `import()` would need vm's loader hook, which prints an
 * experimental warning on Node 22 and is lost with a cached script on Node 20. Loaded by Node's own loader, as
 * any file, this module's `import()` resolves as it always has.
 */
// eslint-disable-next-line @typescript-eslint/no-implied-eval
export const importNative = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<unknown>;
