/**
 * Code blocks of README.md (and of docs/*.md) marked for tests: a line `<!-- example: NAME -->` right before a
 * fenced block names it. Tests write the blocks as the user would copy them, so they break when the docs drift.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const README = path.resolve(__dirname, '../../README.md');

/** Every marked block of a markdown file, by name, in the file's order. */
export function markdownFileBlocks(file: string): Map<string, string> {
  return readmeBlocks(fs.readFileSync(file, 'utf8'), path.basename(file));
}

/** Every marked block of README.md by name; a marker without a fenced block right after it is an error. */
export function readmeBlocks(readme = fs.readFileSync(README, 'utf8'), name = 'README.md'): Map<string, string> {
  const blocks = new Map<string, string>();
  const lines = readme.split('\n');
  lines.forEach((line, index) => {
    const marker = /^<!-- example: (\S+) -->$/.exec(line.trim());
    if (!marker) return;
    const fence = lines[index + 1] ?? '';
    if (!fence.startsWith('```')) throw new Error(`${name} line ${index + 1}: marker "${marker[1]}" is not followed by a fenced code block`);
    const end = lines.findIndex((candidate, at) => at > index + 1 && candidate.startsWith('```'));
    if (end < 0) throw new Error(`${name} line ${index + 2}: the code block "${marker[1]}" is not closed`);
    if (blocks.has(marker[1])) throw new Error(`${name} line ${index + 1}: a second block named "${marker[1]}"`);
    blocks.set(marker[1], lines.slice(index + 2, end).join('\n') + '\n');
  });
  return blocks;
}

/** One marked block of README.md; fails naming the marker when the README lacks it. */
export function readmeBlock(name: string): string {
  const block = readmeBlocks().get(name);
  if (block === undefined) throw new Error(`README.md has no block marked <!-- example: ${name} -->`);
  return block;
}
