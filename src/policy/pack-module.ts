/**
 * Importing a pack file: the path of a module whose default export is a list of policies. Runs in the pack
 * host's worker (pack-worker.ts), never in secretform's own process: a pack's code runs when it is imported.
 *
 * - `.js`, `.mjs`, `.cjs`: Node's own `import()` (ES module or CommonJS; `module.exports = [...]` works too).
 * - `.ts`, `.mts`, `.cts`: through tsx's `tsImport` (tsx/esm/api), taken from the project's own node_modules
 *   first (a TypeScript cdktf app has it to run main.ts), else from secretform's. Without tsx, the error says
 *   to install it or compile the pack to JavaScript.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { definePolicy, POLICY_MARKER, policyDefinitionProblems, type Policy, type PolicyDefinition } from './policy';

export class PolicyLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyLoadError';
  }
}

/** The file of a pack spec; a PolicyLoadError when there is none (checked before any pack code runs). */
export function packFile(pack: string, cwd: string): string {
  const file = path.resolve(cwd, pack);
  if (!fs.existsSync(file)) {
    throw new PolicyLoadError(`policy pack ${pack}: ${file} does not exist; give "recommended" or the path of a JS/TS module (relative to ${cwd})`);
  }
  return file;
}

const TYPESCRIPT_EXTENSIONS = ['.ts', '.mts', '.cts'];
const JAVASCRIPT_EXTENSIONS = ['.js', '.mjs', '.cjs'];

/** The policies of the pack file `pack` (relative to `cwd`); a PolicyLoadError naming the pack when it cannot be had. */
export async function importPack(pack: string, cwd: string): Promise<readonly Policy[]> {
  const file = packFile(pack, cwd);
  const extension = path.extname(file).toLowerCase();
  let namespace: unknown;
  try {
    if (TYPESCRIPT_EXTENSIONS.includes(extension)) namespace = await importTypeScript(file, cwd);
    else if (JAVASCRIPT_EXTENSIONS.includes(extension)) namespace = await importNative(pathToFileURL(file).href);
    else throw new PolicyLoadError(`policy pack ${pack}: "${extension || 'no extension'}" is not a module this loader takes; use ${[...JAVASCRIPT_EXTENSIONS, ...TYPESCRIPT_EXTENSIONS].join(', ')}`);
  } catch (error) {
    if (error instanceof PolicyLoadError) throw error;
    throw new PolicyLoadError(`policy pack ${pack}: cannot load ${file}: ${(error as Error).message}`);
  }
  return policiesOf(pack, defaultExport(namespace));
}

/** The module's default export; a CommonJS module compiled from `export default` has it one level down. */
function defaultExport(namespace: unknown): unknown {
  const value = (namespace as { default?: unknown } | null)?.default;
  if (!Array.isArray(value) && typeof value === 'object' && value !== null && Array.isArray((value as { default?: unknown }).default)) {
    return (value as { default: unknown }).default;
  }
  return value;
}

function policiesOf(pack: string, value: unknown): Policy[] {
  if (!Array.isArray(value)) {
    throw new PolicyLoadError(`policy pack ${pack}: its default export must be a list of policies (\`export default [definePolicy({...}), ...]\`), got ${value === undefined ? 'no default export' : typeof value}`);
  }
  return value.map((entry: unknown, index) => {
    if (typeof entry === 'object' && entry !== null && (entry as Record<symbol, unknown>)[POLICY_MARKER] === true) return entry as Policy;
    const problems = policyDefinitionProblems(entry);
    if (problems.length > 0) throw new PolicyLoadError(`policy pack ${pack}: entry ${index + 1}: ${problems.join('; ')}`);
    return definePolicy(entry as PolicyDefinition);
  });
}

interface TsxApi {
  tsImport: (specifier: string, parentURL: string) => Promise<unknown>;
}

async function importTypeScript(file: string, cwd: string): Promise<unknown> {
  const api = await tsxApi(cwd);
  if (api === undefined) {
    throw new PolicyLoadError(`policy pack ${file}: a TypeScript pack needs tsx (npm install -D tsx in the project), or compile the pack to JavaScript and give the .js file`);
  }
  return api.tsImport(pathToFileURL(file).href, pathToFileURL(path.join(cwd, 'package.json')).href);
}

/**
 * tsx's ESM API from the project's node_modules, else from secretform's own; undefined when neither has it. Its
 * ES module build is imported by file (found through tsx's package.json exports): the CommonJS build of
 * `tsx/esm/api` that `require` would pick registers its loader hooks from a wrong path (tsx 4.23).
 */
async function tsxApi(cwd: string): Promise<TsxApi | undefined> {
  for (const base of [path.join(cwd, 'package.json'), __filename]) {
    let entry: string | undefined;
    try {
      const manifestPath = createRequire(base).resolve('tsx/package.json');
      entry = esmApiEntry(JSON.parse(fs.readFileSync(manifestPath, 'utf8')), path.dirname(manifestPath));
    } catch {
      // Not installed there: try the next place.
    }
    if (entry === undefined) continue;
    const api = (await importNative(pathToFileURL(entry).href)) as Partial<TsxApi>;
    if (typeof api.tsImport === 'function') return api as TsxApi;
  }
  return undefined;
}

/** The file of `tsx/esm/api` under the `import` condition, from tsx's package.json. */
function esmApiEntry(manifest: unknown, dir: string): string | undefined {
  const target = (manifest as { exports?: Record<string, unknown> } | null)?.exports?.['./esm/api'];
  const imported = typeof target === 'object' && target !== null ? (target as { import?: unknown }).import : undefined;
  const file = typeof imported === 'string' ? imported : (imported as { default?: unknown } | undefined)?.default;
  return typeof file === 'string' ? path.join(dir, file) : undefined;
}

/** Node's own import() (native-import.ts), loaded only by a run that loads a pack file or tsx. */
function importNative(specifier: string): Promise<unknown> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- outside the CLI's bundle, and only when needed
  return (require('./native-import') as typeof import('./native-import')).importNative(specifier);
}
