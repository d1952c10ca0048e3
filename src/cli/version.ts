import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The version in the package's package.json (two levels above src/cli and dist/cli alike). */
export function readPackageVersion(): string {
  const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}
