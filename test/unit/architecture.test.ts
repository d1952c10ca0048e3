/**
 * The boundaries the layout promises: the engine reads synthesized JSON and never reaches constructs or cdktf;
 * the package entry never loads the CLI; engine and reports name no resource type (a type's special cases
 * are its hooks). Checked over the real import graph of src/.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RESOURCE_TYPES } from '../../src/resources';
import { importsOf, relative, resolveLocal, sourceFiles, SRC } from '../support/import-graph';

/** Every file and package reachable from `entry` through imports. */
function reachable(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const specifier of importsOf(file)) {
      const local = resolveLocal(file, specifier);
      if (local) visit(local);
      else if (!specifier.startsWith('.')) packages.add(specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/'));
    }
  };
  visit(entry);
  return { files, packages };
}

test('no import from the engine reaches the constructs, cdktf or the CLI', () => {
  for (const file of sourceFiles(path.join(SRC, 'engine'))) {
    const { files, packages } = reachable(file);
    const offending = [...files].map(relative).filter((name) => name.startsWith('constructs/') || name.startsWith('cli/'));
    expect({ file: relative(file), offending, frameworks: [...packages].filter((name) => /cdktf|cdktn|constructs/.test(name)) })
      .toEqual({ file: relative(file), offending: [], frameworks: [] });
  }
});

test('the package entry point does not load the CLI', () => {
  const { files, packages } = reachable(path.join(SRC, 'index.ts'));
  expect([...files].map(relative).filter((name) => name.startsWith('cli/'))).toEqual([]);
  expect(packages.has('commander')).toBe(false);
});

test('engine and reports name no resource type: what is special about a type is one of its hooks', () => {
  const typeNames = RESOURCE_TYPES.map((resourceType) => resourceType.type);
  const found: string[] = [];
  for (const file of [...sourceFiles(path.join(SRC, 'engine')), ...sourceFiles(path.join(SRC, 'report'))]) {
    const text = fs.readFileSync(file, 'utf8');
    for (const name of typeNames) if (text.includes(`'${name}'`) || text.includes(`"${name}"`)) found.push(`${relative(file)}: ${name}`);
    if (text.includes('SYNCED')) found.push(`${relative(file)}: SYNCED`);
  }
  expect(found).toEqual([]);
});

test('the engine is laid out by stage: only the API and the shared error codes sit at its top', () => {
  const top = fs.readdirSync(path.join(SRC, 'engine'), { withFileTypes: true });
  expect(top.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => entry.name).sort()).toEqual(['errors.ts', 'index.ts']);
  // Each stage folder says what it owns and what it must not do.
  const stages = top.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  expect(stages.length).toBeGreaterThan(0);
  expect(stages.filter((stage) => !fs.existsSync(path.join(SRC, 'engine', stage, 'README.md')))).toEqual([]);
});
