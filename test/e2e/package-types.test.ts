/**
 * The shipped declaration files type-check in a user's project, as a user sets one up: the packed tarball
 * installed into fresh apps (cdktf 0.21 + constructs 10.4.2), the README's main.ts, `strict` and
 * `skipLibCheck: false`, compiled by TypeScript 5 and TypeScript 7 (installed from the npm registry into the tool
 * cache, see test/support/package-tarball.ts). One app has no @types/node of its own (Node's types come from secretform's
 * dependency), the other installs a newer @types/node itself (npm shares one copy: no duplicate declarations).
 * TypeScript 7 loads no @types package unless `types` names it, so it runs with `types` unset and with
 * `["node"]`. TypeScript 5 also with `esModuleInterop: false` (TypeScript 7 refuses that setting): the declarations
 * name no zod type (zod's own declarations fail without it), so a user's setting does not matter.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cachedRegistryTool, ok, packRepository, run } from '../support/package-tarball';
import { readmeBlock } from '../support/readme-blocks';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(600_000);

/** The compilers users get: the last 5.x and the registry's 7.x, pinned so a run is repeatable. */
const COMPILERS = { 'typescript 5': '5.9.3', 'typescript 7': '7.0.2' } as const;
type CompilerName = keyof typeof COMPILERS;

/** The newer @types/node a user may have installed next to secretform's. */
const USER_TYPES_NODE = '24';

let workdir: string;
const compilers = new Map<CompilerName, string>();
const apps = new Map<'without @types/node' | 'with its own @types/node', string>();

beforeAll(async () => {
  workdir = tempDir('secretform-types-');
  const [tarball] = await Promise.all([
    packRepository(workdir),
    ...Object.entries(COMPILERS).map(async ([name, version]) => {
      const dir = await cachedRegistryTool('typescript', version);
      compilers.set(name as CompilerName, path.join(dir, 'node_modules', 'typescript', 'bin', 'tsc'));
    }),
  ]);
  const dependencies = { secretform: `file:${tarball}`, cdktf: '0.21.0', constructs: '10.4.2' };
  const variants = [
    ['without @types/node', {}],
    ['with its own @types/node', { '@types/node': USER_TYPES_NODE }],
  ] as const;
  await Promise.all(
    variants.map(async ([variant, devDependencies], index) => {
      const dir = path.join(workdir, `app-${index}`);
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `app-${index}`, private: true, dependencies, devDependencies }, null, 2));
      fs.writeFileSync(path.join(dir, 'main.ts'), readmeBlock('main.ts'));
      await ok('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], dir);
      apps.set(variant, dir);
    }),
  );
});

afterAll(() => {
  if (workdir) fs.rmSync(workdir, { recursive: true, force: true });
});

/** Writes tsconfig.json (strict, no skipLibCheck, only main.ts) with the given options and runs the compiler. */
async function typeCheck(compiler: CompilerName, app: string, options: Record<string, unknown>): Promise<{ code: number | null; output: string }> {
  const compilerOptions = { strict: true, skipLibCheck: false, noEmit: true, target: 'ES2022', ...options };
  fs.writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['main.ts'] }, null, 2));
  return run(process.execPath, [compilers.get(compiler)!, '-p', 'tsconfig.json'], app);
}

test('the cached compilers are the pinned TypeScript 5 and 7', async () => {
  for (const [name, version] of Object.entries(COMPILERS)) {
    expect(await ok(process.execPath, [compilers.get(name as CompilerName)!, '--version'], workdir)).toContain(`Version ${version}`);
  }
});

test('a user app that did not install @types/node still gets one copy, from secretform\'s dependency', () => {
  const app = apps.get('without @types/node')!;
  expect(fs.existsSync(path.join(app, 'node_modules', '@types', 'node', 'package.json'))).toBe(true);
  expect(fs.existsSync(path.join(app, 'node_modules', 'secretform', 'node_modules', '@types', 'node'))).toBe(false);
  const other = apps.get('with its own @types/node')!;
  expect(JSON.parse(fs.readFileSync(path.join(other, 'node_modules', '@types', 'node', 'package.json'), 'utf8')).version).toMatch(new RegExp(`^${USER_TYPES_NODE}\\.`));
  expect(fs.existsSync(path.join(other, 'node_modules', 'secretform', 'node_modules', '@types', 'node'))).toBe(false);
});

/**
 * Four combinations (and two with `esModuleInterop: false`, which TypeScript 7 no longer accepts), each compile costs 5-40 s on a loaded machine: each compiler once on an app without
 * @types/node and `types` unset (TypeScript 7's default, the issue users hit), and once on an app with its own
 * newer @types/node and `types: ["node"]`; TypeScript 5 there under CommonJS resolution (`node10`, with
 * `esModuleInterop` as `tsc --init` sets it), TypeScript 7 (which dropped `node10`) under `nodenext`.
 */
const CASES = [
  ['typescript 5', 'without @types/node', { module: 'nodenext' }],
  ['typescript 5', 'with its own @types/node', { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true, types: ['node'] }],
  ['typescript 7', 'without @types/node', { module: 'nodenext' }],
  ['typescript 7', 'with its own @types/node', { module: 'nodenext', types: ['node'] }],
  // esModuleInterop off: zod's declarations fail under it, so none of ours may name zod's types. TypeScript 7
  // has no such setting (`esModuleInterop=false` is refused, TS5108: interop is always on).
  ['typescript 5', 'with its own @types/node', { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: false, types: ['node'] }],
  ['typescript 5', 'without @types/node', { module: 'nodenext', esModuleInterop: false }],
] as const;

test.each(CASES)('%s type-checks the README main.ts, strict, skipLibCheck false, in an app %s, with %j', async (compiler, app, options) => {
  const result = await typeCheck(compiler, apps.get(app)!, options);
  expect(result.output).toBe('');
  expect(result.code).toBe(0);
});

test('TypeScript 7 refuses esModuleInterop: false (TS5108): its users check with its default, which the cases above do', async () => {
  // Should TypeScript 7 ever accept the option again, this fails and the esModuleInterop: false cases above
  // must be run under TypeScript 7 too.
  const result = await typeCheck('typescript 7', apps.get('without @types/node')!, { module: 'nodenext', esModuleInterop: false });
  expect(result.code).not.toBe(0);
  expect(result.output).toContain("error TS5108: Option 'esModuleInterop=false' has been removed");
});

test('a type error in the user\'s code is still reported (the check is real)', async () => {
  const app = apps.get('without @types/node')!;
  fs.writeFileSync(path.join(app, 'broken.ts'), readmeBlock('main.ts').replace("rotationPeriod: '24h'", 'rotationPeriod: true'));
  fs.writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, skipLibCheck: false, noEmit: true, module: 'nodenext' }, files: ['broken.ts'] }));
  const result = await run(process.execPath, [compilers.get('typescript 7')!, '-p', 'tsconfig.json'], app);
  expect(result.code).not.toBe(0);
  expect(result.output).toMatch(/broken\.ts\(\d+,\d+\): error TS2322/);
});
