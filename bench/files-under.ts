/** The files below `dir`, as paths relative to it in sorted order, leaving out those whose name `skip` says. */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export function filesUnder(dir: string, skip: (name: string) => boolean = () => false): string[] {
  const files: string[] = [];
  const walk = (current: string) => {
    for (const name of readdirSync(current).sort()) {
      const file = join(current, name);
      if (statSync(file).isDirectory()) walk(file);
      else if (!skip(name)) files.push(relative(dir, file));
    }
  };
  walk(dir);
  return files;
}
