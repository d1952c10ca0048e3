/**
 * The pull-request comment as a reviewer sees it, in a real browser (Debian's headless Chromium through
 * playwright-core, which never downloads a browser of its own). What stands in for GitHub:
 * - `marked` with GFM and `marked-alert` renders the markdown, `> [!CAUTION]` alerts included, keeping the
 *   `<details>` HTML as GitHub does;
 * - highlight.js's `diff` grammar colours the ```diff blocks as GitHub's does (`+` green, `-` red), styled by
 *   highlight.js's GitHub theme;
 * - `github-markdown-css` (GitHub's own markdown stylesheet, alerts included) lays the page out at the width of a
 *   pull-request comment;
 * - the `mermaid` package's browser bundle draws the ```mermaid blocks, as GitHub does.
 * Checks per scenario: the status line, the alert blocks, coloured diff lines, no code block wider than the
 * comment, and a mermaid picture that parses and renders an SVG with nodes coloured by action. One screenshot per
 * scenario goes to test-artifacts/comment/ (gitignored), every details block opened.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { COMMENT_SCENARIOS, scenarioComment, type CommentScenario } from '../support/comment-scenarios';
import { pageFacts, renderInPage } from './comment-page';

jest.setTimeout(120_000);

const ROOT = resolve(__dirname, '../..');
const CHROMIUM = process.env.SECRETFORM_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = join(ROOT, 'test-artifacts', 'comment');
/** A file of an installed package (read directly: some packages' exports do not list their browser bundles). */
const modulePath = (file: string) => join(ROOT, 'node_modules', file);

/** GitHub's width for a comment body in a pull request's conversation. */
const COMMENT_WIDTH_PX = 880;

const missing = !existsSync(CHROMIUM);
if (missing && process.env.CI === 'true') {
  throw new Error(`${CHROMIUM} is missing, so the comment cannot be checked in a browser: install Debian's chromium package (.ci/run does) or set SECRETFORM_CHROMIUM`);
}
if (missing) console.warn(`comment-browser test skipped: ${CHROMIUM} is missing (install Debian's chromium package, or set SECRETFORM_CHROMIUM)`);
const describeInBrowser = missing ? describe.skip : describe;

/** The page: GitHub's stylesheet and the renderers, loaded from node_modules; the markdown comes later. */
function pageHtml(): string {
  const css = [modulePath('github-markdown-css/github-markdown-light.css'), modulePath('highlight.js/styles/github.css')].map((file) => readFileSync(file, 'utf8'));
  return `<!doctype html><html><head><meta charset="utf-8"><style>${css.join('\n')}
body { margin: 0; background: #fff; } .markdown-body { box-sizing: border-box; width: ${COMMENT_WIDTH_PX}px; padding: 16px; }
</style></head><body><article class="markdown-body" id="comment"></article></body></html>`;
}

/** highlight.js's core and diff grammar are CommonJS files without imports: wrapped to run in the page. */
function commonJsScript(file: string, global: string): string {
  return `(() => { const module = { exports: {} }; const exports = module.exports; ${readFileSync(modulePath(file), 'utf8')}\nwindow.${global} = module.exports; })();`;
}

async function loadRenderers(page: Page): Promise<void> {
  await page.setContent(pageHtml());
  await page.addScriptTag({ path: modulePath('marked/lib/marked.umd.js') });
  await page.addScriptTag({ path: modulePath('marked-alert/dist/index.umd.js') });
  await page.addScriptTag({ content: commonJsScript('highlight.js/lib/core.js', 'hljs') });
  await page.addScriptTag({ content: commonJsScript('highlight.js/lib/languages/diff.js', 'hljsDiff') });
  await page.addScriptTag({ path: modulePath('mermaid/dist/mermaid.min.js') });
}

const GREEN_FILL = 'rgb(218, 251, 225)'; // #dafbe1, the classDef of a create
const TRANSPARENT = 'rgba(0, 0, 0, 0)';

describeInBrowser('the pull-request comment in a browser', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    // --no-sandbox: CI containers run as root, where Chromium's sandbox cannot start.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: COMMENT_WIDTH_PX + 40, height: 800 } });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it.each(COMMENT_SCENARIOS.map((scenario) => [scenario.name, scenario] as const))('%s: shows the status, the alerts, coloured diffs and the picture', async (_name, scenario: CommentScenario) => {
    const [markdown] = scenarioComment(scenario);
    await loadRenderers(page);
    const { mermaidErrors } = await renderInPage(page, markdown);
    await page.screenshot({ path: join(ARTIFACTS, `${scenario.name}.png`), fullPage: true });
    const facts = await pageFacts(page);

    expect(facts.statusWord.replace(/:.*/, '')).toBe(scenario.status);
    expect(facts.statusIcon).toMatch(/^\p{Extended_Pictographic}/u);
    expect(facts.alerts.map((alert) => alert.kind)).toEqual(scenario.alerts);
    for (const alert of facts.alerts) expect(alert.border).not.toBe(TRANSPARENT);
    if (scenario.alerts.includes('CAUTION') && scenario.alerts.includes('WARNING')) {
      expect(facts.alerts[0].border).not.toBe(facts.alerts[1].border); // red and amber, not one grey quote style
    }
    expect(facts.overflowing).toEqual([]);

    if (scenario.status === 'No changes') {
      expect(facts.additions + facts.deletions).toBe(0);
    } else {
      expect(facts.additions).toBeGreaterThan(0);
      expect(facts.additionBackground).not.toBe(TRANSPARENT);
    }
    if (facts.deletions > 0) expect(facts.deletionBackground).not.toBe(facts.additionBackground);

    expect(mermaidErrors).toEqual([]);
    expect(facts.mermaidText).not.toMatch(/syntax error/i);
    if (scenario.mermaid) {
      expect(facts.mermaidSvgs).toBe(1);
      expect(facts.nodeFills.length).toBeGreaterThan(1);
      if (markdown.includes('(create)"]')) expect(facts.nodeFills).toContain(GREEN_FILL);
    } else {
      expect(facts.mermaidSvgs).toBe(0);
    }
  });

  it('the destroys scenario has red deletion lines and green addition lines', async () => {
    const destroys = COMMENT_SCENARIOS.find((scenario) => scenario.name === 'destroys')!;
    await loadRenderers(page);
    await renderInPage(page, scenarioComment(destroys)[0]);
    const facts = await pageFacts(page);
    expect(facts.deletions).toBeGreaterThan(0);
    expect(facts.deletionBackground).toMatch(/^rgb\(255, /); // a red tint
    expect(facts.additionBackground).toMatch(/^rgb\(2\d\d, 255, /); // a green tint
  });
});
