/**
 * The documentation the project ships (README.md, docs/, examples/ and the READMEs under src/, all in the
 * package) is its own: every relative link resolves to a file of the repository, and no page sends a user to a
 * document that is neither in the repository nor in the package (the service's specification, the design notes).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : markdownFiles(relative);
    return entry.name.endsWith('.md') ? [relative] : [];
  });
}

const PAGES = ['README.md', ...markdownFiles('docs'), ...markdownFiles('examples'), ...markdownFiles('src')];

test('the shipped pages are found', () => {
  expect(PAGES).toEqual(expect.arrayContaining(['README.md', 'docs/cli.md', 'docs/http-api.md', 'src/engine/README.md']));
});

test('every relative link of a shipped page names a file of the repository', () => {
  const broken: string[] = [];
  for (const page of PAGES) {
    const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
    for (const match of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      const target = match[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      if (!fs.existsSync(path.resolve(ROOT, path.dirname(page), target))) broken.push(`${page}: ${target}`);
    }
  }
  expect(broken).toEqual([]);
});

test('no shipped page names a document the repository and the package do not hold', () => {
  const outside = /service-api\.md|behaviour-notes\.md|interface\.md|DESIGN\.md|\.\.\/shared\b/g;
  const found = PAGES.flatMap((page) => [...fs.readFileSync(path.join(ROOT, page), 'utf8').matchAll(outside)].map((match) => `${page}: ${match[0]}`));
  expect(found).toEqual([]);
});
