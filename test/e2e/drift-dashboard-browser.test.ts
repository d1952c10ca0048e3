/**
 * The drift dashboard (`drift --format html`) as a team sees it: written to disk and opened from there in Debian's
 * headless Chromium (through playwright-core). The page must make no request at all (everything inline), show each
 * stack's status, a bar per recorded check, the objects drifted now, the acknowledgements and the pending changes,
 * and escape what came from code or the service. A screenshot goes to test-artifacts/drift/ (gitignored).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import type { DriftEntry } from '../../src/engine/plan/plan';
import type { StackDriftCheck } from '../../src/engine/drift/drift-check';
import { fieldDigests } from '../../src/engine/drift/field-digest';
import { emptyHistory, type DriftHistory } from '../../src/engine/drift/history';
import { classify } from '../../src/engine/drift/statuses';
import { FingerprintKey } from '../../src/engine/state/fingerprint';
import { renderDriftHtml } from '../../src/report/drift/html';
import type { StackDriftOutcome } from '../../src/report/drift/drift-view';

jest.setTimeout(120_000);

const ROOT = resolve(__dirname, '../..');
const CHROMIUM = process.env.SECRETFORM_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = join(ROOT, 'test-artifacts', 'drift');
const KEY = FingerprintKey.keyed(Buffer.from('dashboard-key'), 'test');

/** What the page's checks use of the DOM (the tests compile without the DOM's types). */
interface PageNode {
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): PageNode | null;
  querySelectorAll(selector: string): ArrayLike<PageNode>;
  getBoundingClientRect(): { height: number };
}
declare const document: PageNode;

const missing = !existsSync(CHROMIUM);
if (missing && process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (.ci/run does) or set SECRETFORM_CHROMIUM`);
if (missing) console.warn(`drift dashboard browser test skipped: ${CHROMIUM} is missing`);
const describeInBrowser = missing ? describe.skip : describe;

function entry(address: string, fields: Record<string, [unknown, unknown]>, kind: DriftEntry['kind'] = 'changed'): DriftEntry {
  return { address, type: 'ldap_static_role', id: address, kind, before: null, after: null, fields: Object.entries(fields).map(([field, [applied, live]]) => ({ field, applied, live })) };
}

/** A stack checked once a day for `days` days, drift growing and an acknowledgement on the way: the last check. */
function checkedStack(stack: string, days: number, driftOf: (day: number) => DriftEntry[], acknowledge?: { address: string; day: number }): StackDriftCheck {
  let history: DriftHistory = emptyHistory(stack);
  let last!: ReturnType<typeof classify>;
  for (let day = 0; day < days; day++) {
    const drift = driftOf(day);
    if (acknowledge && acknowledge.day === day) {
      const seen = drift.find((each) => each.address === acknowledge.address)!;
      history = { ...history, acknowledgements: { [seen.address]: { by: 'ana <on-call>', at: new Date(Date.UTC(2026, 10, day)).toISOString(), reason: 'incident <42>: kept until the fix', kind: seen.kind, fields: fieldDigests(seen, KEY) } } };
    }
    last = classify(history, drift, KEY, new Date(Date.UTC(2026, 10, day + 1)));
    history = last.next;
  }
  return {
    stack,
    checkedAt: history.checks.at(-1)!.at,
    drifted: last.drifted,
    resolved: last.resolved,
    pending: [{ address: `${stack}/svc-new`, type: 'ldap_static_role', action: 'create', fields: [] }],
    checks: history.checks,
    recorded: true,
    historyLocation: `file .secretform/${stack}.drift.json`,
    warnings: [],
  };
}

describeInBrowser('the drift dashboard in a browser', () => {
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('opens from disk with no request, and shows status, chart, drifted objects, acknowledgements and pending', async () => {
    const prod = checkedStack('prod', 14, (day) => [
      ...(day >= 3 ? [entry('prod/svc-payments', { rotation_period: [86400, day >= 9 ? 60 : 3600] })] : []),
      ...(day >= 6 ? [entry('prod/ci-bot', { token_policies: [['deployer'], ['admin', 'deployer']], password: ['(sensitive)', '(sensitive, differs)'] })] : []),
      ...(day >= 10 ? [entry('prod/<script>alert(1)</script>', {}, 'deleted')] : []),
    ], { address: 'prod/ci-bot', day: 7 });
    const staging = checkedStack('staging', 5, () => []);
    const outcomes: StackDriftOutcome[] = [{ stack: 'prod', check: prod }, { stack: 'staging', check: staging }, { stack: 'dev', error: 'service unreachable' }];
    const file = join(ARTIFACTS, 'dashboard.html');
    writeFileSync(file, renderDriftHtml(outcomes, prod.checkedAt));

    const page = await browser.newPage({ viewport: { width: 900, height: 800 } });
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(pathToFileURL(file).href);
    expect(requests).toEqual([pathToFileURL(file).href]);
    expect(dialogs).toEqual([]);

    const facts = await page.evaluate(() => {
      const text = (selector: string, root: PageNode = document) => Array.from(root.querySelectorAll(selector)).map((node) => (node.textContent ?? '').trim());
      const stack = (name: string) => document.querySelector(`section[data-stack="${name}"]`)!;
      return {
        badges: text('.badge'),
        prodBars: Array.from(stack('prod').querySelectorAll('svg.chart g.bar')).map((bar) => Number(bar.getAttribute('data-drifted'))),
        prodRows: Array.from(stack('prod').querySelectorAll('tbody tr')).map((row) => Array.from(row.querySelectorAll('td')).map((cell) => (cell.textContent ?? '').trim())),
        prodLists: text('ul li', stack('prod')),
        staging: text('p', stack('staging')),
        scripts: document.querySelectorAll('script').length,
        chartHeight: stack('prod').querySelector('svg.chart')!.getBoundingClientRect().height,
      };
    });
    expect(facts.badges).toEqual(['known drift', 'no drift', 'not checked']);
    expect(facts.prodBars).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
    expect(facts.chartHeight).toBeGreaterThan(50);
    expect(facts.prodRows.map((row) => [row[0], row[2], row[5], row[6]])).toEqual([
      ['prod/svc-paymentsldap_static_role', 'known', '11', '1'],
      ['prod/ci-botldap_static_role', 'acknowledged', '8', '1'],
      ['prod/<script>alert(1)</script>ldap_static_role', 'known', '4', '1'],
    ]);
    expect(facts.prodRows[1][1]).toContain('password (sensitive, differs)');
    expect(facts.prodRows[1][1]).toContain('token_policies ["deployer"] -> ["admin","deployer"]');
    expect(facts.prodRows[0][4]).toBe('10 days');
    expect(facts.prodLists).toEqual([
      'prod/ci-bot: by ana <on-call> on 2026-11-07T00:00:00.000Z, until the drift changes: incident <42>: kept until the fix',
      'create prod/svc-new',
    ]);
    expect(facts.staging).toEqual(['Every managed object matches its last apply.']);
    expect(facts.scripts).toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard.png'), fullPage: true });
    await page.close();
  });
});
