/**
 * The import graph of src/, read the way the compiler reads it: TypeScript's own pre-processor scans each file
 * (so an `import` inside a comment or a string is not taken for one) and reports every module it names:
 * `import`/`export ... from`, `import type`, side-effect `import './x'`, `import('./x')` (a type position or a
 * dynamic import) and `require('./x')` (the CLI's lazy command loading is a dependency like any other).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

export const SRC = path.resolve(__dirname, '../../src');

/** Module specifiers a source file names. */
export function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return ts.preProcessFile(text, true, true).importedFiles.map((imported) => imported.fileName);
}

/** The file of src/ a relative specifier names, or undefined for a package. */
export function resolveLocal(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(candidate)) return candidate;
  return undefined;
}

export function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** A path relative to src/, with forward slashes, as every message of these tests prints it. */
export const relative = (file: string) => path.relative(SRC, file).split(path.sep).join('/');

/** Every file of src/ (relative) and the files of src/ it imports (relative). */
export function fileGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const targets = new Set<string>();
    for (const specifier of importsOf(file)) {
      const local = resolveLocal(file, specifier);
      if (local) targets.add(relative(local));
    }
    graph.set(relative(file), targets);
  }
  return graph;
}

/**
 * The folder a file belongs to in the layout: `engine/<stage>` inside the engine, `<area>` elsewhere. A stage's
 * subfolders (`plan/diff`) are the stage's. A file at the top of src/ or of the engine (`engine/errors.ts`, the
 * codes every stage shares; `engine/index.ts`, the API over all of them) stands alone, named by its path.
 */
export function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'engine') return parts.length > 2 ? `engine/${parts[1]}` : file;
  return parts[0];
}

/** The graph between folders, and for each folder edge one file import that makes it (for messages). */
export function folderGraph(files: Map<string, Set<string>>): { graph: Map<string, Set<string>>; witness: Map<string, string> } {
  const graph = new Map<string, Set<string>>();
  const witness = new Map<string, string>();
  for (const [from, targets] of files) {
    const fromFolder = folderOf(from);
    if (!graph.has(fromFolder)) graph.set(fromFolder, new Set());
    for (const to of targets) {
      const toFolder = folderOf(to);
      if (toFolder === fromFolder) continue;
      graph.get(fromFolder)!.add(toFolder);
      const key = `${fromFolder} -> ${toFolder}`;
      if (!witness.has(key)) witness.set(key, `${from} imports ${to}`);
    }
  }
  return { graph, witness };
}

/** The strongly connected components of more than one node (Tarjan), each sorted: the graph's cycles. */
export function cyclicComponents(graph: Map<string, Set<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.has(node)) components.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components.sort((a, b) => a[0].localeCompare(b[0]));
}

/**
 * One cycle through `start` inside its component, as a path `a -> b -> ... -> a` (shortest, by breadth-first
 * search), so a failure shows the imports to cut and not only the set of files caught in it.
 */
export function cycleThrough(graph: Map<string, Set<string>>, component: string[], start: string): string[] {
  const inside = new Set(component);
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!inside.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let step: string | undefined = node; step !== undefined && step !== start; step = previous.get(step)) path.splice(1, 0, step);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start];
}
