/**
 * Imports run one way: no cycle between files of src/, none between its folders (an area of src/, or a stage of
 * the engine), and each engine stage imports only the stages listed before it in src/engine/README.md. Read over
 * the real import graph (test/support/import-graph.ts: every import, export-from, `import()` and `require()`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cycleThrough, cyclicComponents, fileGraph, folderGraph, folderOf, SRC } from '../support/import-graph';

/**
 * None today. A cycle that must exist for a while is listed here with why. A cycle
 * found is accepted only when every member is listed in one entry (so none can grow), and an entry that matches
 * no cycle any more fails the test (so the list only shrinks: delete the entry).
 */
const KNOWN_FILE_CYCLES: readonly { why: string; members: readonly string[] }[] = [];

const KNOWN_FOLDER_CYCLES: readonly { why: string; members: readonly string[] }[] = [];

/** The engine's stage order, as src/engine/README.md lists it under "Stage order" (`1. \`state/\``, ...). */
function stageOrder(): string[] {
  const readme = fs.readFileSync(path.join(SRC, 'engine', 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith('Stage order'));
  if (section === undefined) throw new Error('src/engine/README.md has no "## Stage order" section listing the stages');
  // `state/` is the folder engine/state, `errors.ts` the file at the engine's top (folderOf's names).
  return [...section.matchAll(/^\d+\.\s+`([^`]+)`/gm)].map((match) => `engine/${match[1].replace(/\/$/, '')}`);
}

/** The cycles not listed in `known` (each as one path through it, and all its members), and the entries now gone. */
function unlisted(graph: Map<string, Set<string>>, known: readonly { members: readonly string[] }[]): { found: { path: string[]; members: string[] }[]; gone: string[] } {
  const components = cyclicComponents(graph);
  const listed = (component: string[], entry: { members: readonly string[] }) => component.every((member) => entry.members.includes(member));
  return {
    found: components
      .filter((component) => !known.some((entry) => listed(component, entry)))
      .map((component) => ({ path: cycleThrough(graph, component, component[0]), members: component })),
    gone: known
      .filter((entry) => !components.some((component) => listed(component, entry)))
      .map((entry) => `listed but no longer a cycle, delete its entry: ${entry.members.join(', ')}`),
  };
}

const files = fileGraph();

test('no import cycle between files of src/ (beyond the listed ones being removed)', () => {
  const { found, gone } = unlisted(files, KNOWN_FILE_CYCLES);
  const cycles = found.map((cycle) => `${cycle.path.join(' -> ')} (${cycle.members.length} files in the cycle: ${cycle.members.join(', ')})`);
  expect({ cycles, gone }).toEqual({ cycles: [], gone: [] });
});

test('no import cycle between folders of src/ (an area, or an engine stage), beyond the listed ones', () => {
  const { graph, witness } = folderGraph(files);
  const { found, gone } = unlisted(graph, KNOWN_FOLDER_CYCLES);
  // Each folder edge of a cycle is printed with one file import that makes it: a place to cut.
  const cycles = found.map((cycle) => [
    `${cycle.path.join(' -> ')} (${cycle.members.length} folders in the cycle: ${cycle.members.join(', ')})`,
    ...cycle.path.slice(1).map((to, index) => `  ${witness.get(`${cycle.path[index]} -> ${to}`)}`),
  ].join('\n'));
  expect({ cycles, gone }).toEqual({ cycles: [], gone: [] });
});

test('each engine stage imports only the stages before it in src/engine/README.md', () => {
  const order = stageOrder();
  const engineFolders = new Set([...files.keys()].filter((file) => file.startsWith('engine/')).map(folderOf));
  // The list names every stage folder (and the two files at the engine's top), once.
  expect({ unlisted: [...engineFolders].filter((folder) => !order.includes(folder)).sort(), twice: order.filter((folder, index) => order.indexOf(folder) !== index) })
    .toEqual({ unlisted: [], twice: [] });
  const offending: string[] = [];
  for (const [from, targets] of files) {
    if (!from.startsWith('engine/')) continue;
    for (const to of targets) {
      if (!to.startsWith('engine/') || folderOf(to) === folderOf(from)) continue;
      if (order.indexOf(folderOf(to)) > order.indexOf(folderOf(from))) {
        offending.push(`${from} imports ${to}, but ${folderOf(to)} comes after ${folderOf(from)} in the stage order`);
      }
    }
  }
  expect(offending).toEqual([]);
});

test('the graph sees every form of import', () => {
  // A file cycle made only of type positions (`import('...')`) and lazy `require`s still counts: the dev
  // server's ServerContext names the directory with `import('./directory/directory')`, and the CLI loads its
  // commands with `require` (main.ts -> commands/synth.ts).
  expect(files.get('devserver/types.ts')).toContain('devserver/directory/directory.ts');
  expect(files.get('cli/main.ts')).toContain('cli/commands/synth.ts');
});

test('the cycle finder finds every cycle and a path through it', () => {
  // a -> b -> c -> a is a cycle that d only leads into; e imports itself; f -> g is no cycle.
  const graph = new Map(Object.entries({ a: ['b'], b: ['c'], c: ['a', 'f'], d: ['a'], e: ['e'], f: ['g'], g: [] }).map(([node, to]) => [node, new Set(to)]));
  expect(cyclicComponents(graph)).toEqual([['a', 'b', 'c'], ['e']]);
  expect(cycleThrough(graph, ['a', 'b', 'c'], 'b')).toEqual(['b', 'c', 'a', 'b']);
  expect(cycleThrough(graph, ['e'], 'e')).toEqual(['e', 'e']);
});
