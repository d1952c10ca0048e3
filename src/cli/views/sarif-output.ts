/**
 * `--sarif PATH`: the policy results as SARIF 2.1.0 for code scanning, written next to the plan's reports. A
 * result is located at the line that creates its construct; without one, at line 1 of the app's entry file, when
 * cdktf.json's `app` names one that exists.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Plan } from '../../engine/plan/plan';
import { renderSarif } from '../../report';
import type { CliIo } from '../run/io';
import { readPackageVersion } from '../run/version';

export const SARIF_OPTION_HELP = 'also write the policy results as SARIF 2.1.0 to this file (for code scanning)';

/** Writes the SARIF file (relative to the project directory); throws when it cannot be written. */
export function writeSarifFile(plans: readonly Plan[], file: string, io: CliIo): void {
  const target = path.resolve(io.cwd, file);
  const text = renderSarif(plans, { toolVersion: readPackageVersion(), sourceFile: appSourceFile(io.cwd) });
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, text);
  } catch (error) {
    throw new Error(`cannot write the SARIF file ${target}: ${(error as Error).message}`, { cause: error });
  }
  io.stderr.write(`Policy results written to ${file} (SARIF 2.1.0)\n`);
}

const SOURCE_EXTENSIONS = /\.(ts|mts|cts|js|mjs|cjs)$/;

/** The file cdktf.json's `app` runs (`npx tsx main.ts` -> `main.ts`), relative to `cwd`; undefined when there is none. */
export function appSourceFile(cwd: string): string | undefined {
  let app: unknown;
  try {
    app = (JSON.parse(fs.readFileSync(path.join(cwd, 'cdktf.json'), 'utf8')) as { app?: unknown } | null)?.app;
  } catch {
    return undefined;
  }
  if (typeof app !== 'string') return undefined;
  const candidate = app.split(/\s+/).reverse().find((word) => SOURCE_EXTENSIONS.test(word) && fs.existsSync(path.resolve(cwd, word)));
  return candidate === undefined ? undefined : path.relative(cwd, path.resolve(cwd, candidate));
}
