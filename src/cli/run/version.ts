import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * The version in the package's package.json: the nearest one above this module, which is two levels up from
 * the CLI's bundle (dist/cli) and three from this file compiled alone (src/cli/run, dist/cli/run).
 */
export function readPackageVersion(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown };
      return typeof manifest.version === 'string' ? manifest.version : 'unknown';
    }
    if (path.dirname(dir) === dir) return 'unknown';
  }
}
