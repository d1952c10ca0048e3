/**
 * Markdown injection (issue 34, item 9): names and free text in a pull-request comment come from code, pull
 * requests and the service. Rendered with `marked` (GFM, as the comment's browser test renders it), nothing of
 * theirs may become markup: no heading, link, image or HTML element, no line that leaves its element; and what
 * GitHub links in text (mentions, issue references, bare URLs) must not read as such.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import { renderMarkdown } from '../../src/report';
import { escapeHtml, escapeInline, inlineCode, tableCode } from '../../src/report/markdown-escape';
import type { Plan } from '../../src/engine/plan/plan';
import { change, emptyPlan } from './report-plan-fixture';
import { stackReport } from '../../src/report/stacks-view';

interface MarkedModule {
  Marked: new (options: { gfm: boolean }) => { parse(text: string): string };
}

/** marked's browser build, run in a context of its own (the package is an ES module, which jest does not load). */
function loadMarked(): MarkedModule {
  const context = createContext({});
  runInContext(readFileSync(join(__dirname, '..', '..', 'node_modules', 'marked', 'lib', 'marked.umd.js'), 'utf8'), context);
  return (context as { marked: MarkedModule }).marked;
}

const marked = new (loadMarked().Marked)({ gfm: true });

/** A heading, a mention, a remote image, HTML, a link, an issue reference and bare URLs, after blank lines. */
const PAYLOAD = '\n\n# PWNED heading @attacker ![pixel](https://evil.example/i.png) <img src="https://evil.example/x.png"> [click](https://evil.example) see #123 https://evil.example/a www.evil.example\n\n';
const ADDRESS = `prod/x${PAYLOAD}`;

function hostilePlan(): Plan {
  return emptyPlan({
    changes: [
      change({ address: ADDRESS, type: 'ldap_static_role', action: 'delete', before: { name: `svc${PAYLOAD}` } }),
      change({ address: 'prod/kept', action: 'update', dependsOn: [ADDRESS], previousAddress: `prod/old${PAYLOAD}`, before: { name: 'a' }, after: { name: 'b' }, fieldChanges: [{ field: 'name', from: 'a', to: 'b', forcesReplacement: false }] }),
    ],
    warnings: [`the server said <b>no</b>${PAYLOAD}`],
    policy: {
      packs: ['recommended'],
      rules: [{ id: 'team/p1', description: `described${PAYLOAD}`, enforcement: 'advisory', pack: 'recommended' }],
      results: [
        { policy: 'team/p1', enforcement: 'advisory', address: ADDRESS, status: 'waived', message: `violated${PAYLOAD}`, fields: [], waiverReason: `agreed with @attacker in #123, see https://evil.example${PAYLOAD}` },
        { policy: `team/p2${PAYLOAD}`, enforcement: 'advisory', address: 'prod/kept', status: 'failed', message: `<script>alert(1)</script>${PAYLOAD}`, fields: [] },
      ],
    },
  });
}

/** The rendered HTML's text outside code (where GitHub links nothing), tags removed and entities decoded. */
function textOf(html: string): string {
  return html.replace(/<pre>[\s\S]*?<\/pre>|<code>[\s\S]*?<\/code>/g, '').replace(/<[^>]*>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, '\'').replace(/&amp;/g, '&');
}

function expectInert(markdown: string): void {
  const html = marked.parse(markdown);
  expect(html).not.toMatch(/<h\d[^>]*>[^<]*PWNED/);
  expect(html).not.toMatch(/<(a|img|script|b)[\s>]/);
  expect(html).not.toMatch(/evil\.example[^<]*<\/a>/);
  const text = textOf(html);
  // GitHub links these in text: a mention, an issue reference, a bare URL.
  expect(text).not.toMatch(/@attacker/);
  expect(text).not.toMatch(/#\d/);
  expect(text).not.toMatch(/https:\/\/evil|www\.evil/);
  // Still there, for the reviewer to read (the word joiner is invisible).
  expect(text.replace(/\u2060/g, '')).toContain('agreed with @attacker in #123');
}

describe('markdown escaping renders every name and free text inert', () => {
  test('the plan comment with hostile addresses, values, warnings, policy messages and waiver reasons', () => {
    const parts = renderMarkdown([stackReport(hostilePlan())]);
    expect(parts).toHaveLength(1);
    // The names are in the dependency chart too, in a fence of its own that no line of theirs may close.
    expect(parts[0]).toContain('```mermaid');
    expectInert(parts[0]);
    // Every <details> the report opens it also closes: no line of input ended a <summary> early.
    const html = marked.parse(parts[0]);
    expect((html.match(/<details>/g) ?? []).length).toBe((html.match(/<\/details>/g) ?? []).length);
  });

  test.each<[string, (text: string) => string]>([
    ['escapeInline (a list item)', (text) => `- ${escapeInline(text)}`],
    ['escapeHtml (a <summary>)', (text) => `<details><summary>${escapeHtml(text)}</summary>\n\nbody\n\n</details>`],
    ['inlineCode', inlineCode],
    ['tableCode', (text) => `| a | b |\n|---|---|\n| ${tableCode(text)} | x |`],
  ])('%s keeps a payload on one line and inert', (_name, escape) => {
    const markdown = escape(PAYLOAD);
    expect(markdown).not.toContain('\n\n#');
    expect(marked.parse(markdown)).not.toMatch(/<(h\d|a|img)[\s>]/);
  });

  test('mentions, references and bare URLs in text are broken, each by an invisible word joiner', () => {
    expect(escapeInline('ask @team-leads about #42 at https://example.com or www.example.com, mail a@b.example')).toBe(
      'ask @\u2060team-leads about \\#\u206042 at https:\u2060//example.com or www\u2060.example.com, mail a@\u2060b.example',
    );
  });

  test('line breaks of every kind become spaces, and control characters show as escapes', () => {
    expect(escapeInline('a\r\nb\rc\nd\u2028e\u2029f')).toBe('a b c d e f');
    expect(escapeInline('bell\u0007 esc\u001b[2J')).toBe('bell\\\\u0007 esc\\\\u001b\\[2J');
    expect(inlineCode('x\u009by')).toBe('`x\\u009by`');
  });
});
