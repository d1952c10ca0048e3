/**
 * The package as users get it, for the tests that install it into fresh projects: `npm pack` of the repository
 * (dist/ is built by jest's global setup, so packing runs no script), child-process helpers, and tools
 * installed from the npm registry into a cache that survives between runs (outside node_modules, which `npm ci`
 * deletes; scripts/fetch-node.sh uses the same one).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

/** Where registry tools (compilers, Node binaries, CLIs) are kept between runs, one directory per version. */
export const TOOL_CACHE =
  process.env.SECRETFORM_TOOL_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'secretform-tools');

export interface RunResult {
  code: number | null;
  output: string;
}

export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Runs a command and returns its output; a non-zero exit fails with the command, the directory and the output. */
export async function ok(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const result = await run(command, args, cwd, env);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} in ${cwd} failed (${result.code}):\n${result.output}`);
  return result.output;
}

/** `npm pack` of the repository into `destination`; returns the tarball's path. */
export async function packRepository(destination: string): Promise<string> {
  const packed = await ok('npm', ['pack', '--ignore-scripts', '--pack-destination', destination, '--json'], ROOT);
  const jsonStart = packed.indexOf('[');
  return path.join(destination, (JSON.parse(packed.slice(jsonStart)) as Array<{ filename: string }>)[0].filename);
}

/**
 * Installs `name@version` from the npm registry into TOOL_CACHE/<name>@<version> unless it is already there
 * (a marker file is written last, so an interrupted install is redone), and returns that directory.
 */
export async function cachedRegistryTool(name: string, version: string): Promise<string> {
  const dir = path.join(TOOL_CACHE, `${name.replace('/', '+')}@${version}`);
  const marker = path.join(dir, '.installed');
  if (fs.existsSync(marker)) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'secretform-tool-cache', private: true }));
  await ok('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', `${name}@${version}`], dir);
  fs.writeFileSync(marker, `${name}@${version}\n`);
  return dir;
}
