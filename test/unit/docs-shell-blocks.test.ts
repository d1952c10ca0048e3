/**
 * Every shell block of README.md and docs/*.md is either run by a test or says why not, so that a new block
 * cannot slip in unchecked: the line before its fence is `<!-- example: NAME -->` (and a test file names NAME:
 * test/support/readme-blocks.ts hands the block to it) or `<!-- not run: REASON -->`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sourceFiles } from '../support/import-graph';

const ROOT = path.resolve(__dirname, '../..');
const PAGES = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const TESTS = sourceFiles(path.join(ROOT, 'test')).map((file) => fs.readFileSync(file, 'utf8')).join('\n');

interface ShellBlock {
  where: string;
  marker: string;
}

function shellBlocks(page: string): ShellBlock[] {
  const lines = fs.readFileSync(path.join(ROOT, page), 'utf8').split('\n');
  const blocks: ShellBlock[] = [];
  let inFence = false;
  lines.forEach((line, index) => {
    if (!line.startsWith('```')) return;
    if (!inFence && /^```(sh|bash|shell|console)\b/.test(line)) blocks.push({ where: `${page}:${index + 1}`, marker: (lines[index - 1] ?? '').trim() });
    inFence = !inFence;
  });
  return blocks;
}

const BLOCKS = PAGES.flatMap(shellBlocks);

// The scan finds both kinds of marker. Most blocks are run (issue 33 turns each runnable one into an example);
// the few left are synopses and the contributor's own commands, so only their presence is asserted.
test('the pages have shell blocks, most run by tests and some not', () => {
  expect(BLOCKS.filter((block) => block.marker.startsWith('<!-- example:')).length).toBeGreaterThan(15);
  expect(BLOCKS.filter((block) => block.marker.startsWith('<!-- not run:')).length).toBeGreaterThan(0);
});

test.each(BLOCKS.map((block) => [block.where, block] as const))('%s is run by a test or says why not', (where, block) => {
  const example = /^<!-- example: (\S+) -->$/.exec(block.marker);
  const notRun = /^<!-- not run: (.{20,}) -->$/.exec(block.marker);
  expect({ where, marked: example !== null || notRun !== null }).toEqual({ where, marked: true });
  if (example) expect({ where, namedByATest: TESTS.includes(`'${example[1]}'`) }).toEqual({ where, namedByATest: true });
  if (notRun) {
    // A test it names as running the same thing exists.
    for (const named of notRun[1].match(/test\/[\w/.-]+\.ts/g) ?? []) expect({ where, named, exists: fs.existsSync(path.join(ROOT, named)) }).toEqual({ where, named, exists: true });
  }
});
