/**
 * What the comment's browser test runs inside the page (test/e2e/comment-browser.test.ts): render the markdown as
 * GitHub would, then read what a reviewer sees. These functions are sent to the browser as their source text.
 * The project's types are Node's, without the DOM library (adding it would change Node's own types), so the
 * page's globals are declared here, untyped.
 */
import type { Page } from 'playwright-core';

declare const window: any;
declare const document: any;
declare function getComputedStyle(element: any): any;

export interface Rendered {
  mermaidErrors: string[];
}

/** Renders the markdown in the page as GitHub would, mermaid included; returns mermaid's parse errors. */
export async function renderInPage(page: Page, markdown: string): Promise<Rendered> {
  return page.evaluate(async (text) => {
    const w = window;
    w.hljs.registerLanguage('diff', w.hljsDiff.default ?? w.hljsDiff);
    const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const marked = new w.marked.Marked({ gfm: true }, w.markedAlert());
    marked.use({
      renderer: {
        code(token: { text: string; lang?: string }) {
          if (token.lang === 'mermaid') return `<pre class="mermaid">${escape(token.text)}</pre>`;
          if (token.lang === 'diff') return `<pre><code class="hljs language-diff">${w.hljs.highlight(token.text, { language: 'diff' }).value}</code></pre>`;
          return false;
        },
      },
    });
    const article = document.getElementById('comment')!;
    article.innerHTML = marked.parse(text);
    for (const details of Array.from<any>(document.querySelectorAll('details'))) details.open = true;
    const mermaidErrors: string[] = [];
    const blocks = Array.from<any>(document.querySelectorAll('pre.mermaid'));
    w.mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
    for (const block of blocks) {
      try {
        await w.mermaid.parse(block.textContent ?? '');
      } catch (error) {
        mermaidErrors.push(String((error as Error).message ?? error));
      }
    }
    if (blocks.length > 0) await w.mermaid.run({ nodes: blocks });
    return { mermaidErrors };
  }, markdown);
}

export interface PageFacts {
  statusIcon: string;
  statusWord: string;
  alerts: { kind: string; border: string }[];
  additions: number;
  deletions: number;
  additionBackground: string | undefined;
  deletionBackground: string | undefined;
  overflowing: string[];
  mermaidSvgs: number;
  mermaidText: string;
  nodeFills: string[];
}

export async function pageFacts(page: Page): Promise<PageFacts> {
  return page.evaluate(() => {
    const first = document.querySelector('#comment > p')!;
    const style = (el: any, property: string) => (el === null ? undefined : getComputedStyle(el).getPropertyValue(property));
    const addition = document.querySelector('.hljs-addition');
    const deletion = document.querySelector('.hljs-deletion');
    return {
      statusIcon: (first.textContent ?? '').split(' ')[0],
      statusWord: first.querySelector('strong')?.textContent ?? '',
      alerts: Array.from(document.querySelectorAll('.markdown-alert')).map((el: any) => ({
        kind: Array.from<string>(el.classList).find((name) => name.startsWith('markdown-alert-'))!.replace('markdown-alert-', '').toUpperCase(),
        border: getComputedStyle(el).borderLeftColor,
      })),
      additions: document.querySelectorAll('.hljs-addition').length,
      deletions: document.querySelectorAll('.hljs-deletion').length,
      additionBackground: style(addition, 'background-color'),
      deletionBackground: style(deletion, 'background-color'),
      // A code block whose content is wider than the block makes the reviewer scroll sideways.
      overflowing: Array.from(document.querySelectorAll('pre:not(.mermaid)')).filter((pre: any) => pre.scrollWidth > pre.clientWidth).map((pre: any) => pre.textContent ?? ''),
      mermaidSvgs: document.querySelectorAll('pre.mermaid svg').length,
      mermaidText: Array.from(document.querySelectorAll('pre.mermaid')).map((el: any) => el.textContent ?? '').join('\n'),
      nodeFills: Array.from(document.querySelectorAll('pre.mermaid svg g.node')).map((node: any) => {
        const shape = node.querySelector('rect, polygon, path');
        return shape === null ? '' : getComputedStyle(shape).fill;
      }),
    };
  });
}

