/**
 * The whole comment of each scenario a reviewer meets, as a snapshot: any change to its structure or look shows
 * up here as a diff to review (`npx jest -u` after checking it). The browser test renders the same scenarios.
 */
import { COMMENT_SCENARIOS, scenarioComment } from '../support/comment-scenarios';

describe.each(COMMENT_SCENARIOS.map((scenario) => [scenario.name, scenario] as const))('the comment for %s', (_name, scenario) => {
  const parts = scenarioComment(scenario);

  it('is one part starting with the outcome, then the CI context', () => {
    expect(parts).toHaveLength(1);
    const [status, blank, context] = parts[0].split('\n');
    // One label, then the counts: `for stack` one stack, `over N stacks` several.
    expect(status).toMatch(new RegExp(`^\\S+ \\*\\*${scenario.status}\\*\\* (for stack \`prod\`|over \\d+ stacks)[:.] `));
    expect(status).not.toContain('Plan:');
    expect(blank).toBe('');
    const saved = scenario.stacks === undefined ? ' · applies on merge with `secretform apply plan.out`' : '';
    expect(context).toBe(`<sub>Commit \`3f9c2d1\` · [run 4242](https://github.com/acme/infra/actions/runs/4242) · 2026-11-25 20:55 UTC${saved}</sub>`);
  });

  it('has its alert blocks in order, and a dependency picture only when changes depend on each other', () => {
    expect([...parts[0].matchAll(/^> \[!(\w+)\]$/gm)].map((match) => match[1])).toEqual(scenario.alerts);
    expect(parts[0].includes('```mermaid')).toBe(scenario.mermaid);
  });

  it('matches the reviewed snapshot', () => {
    expect(parts[0]).toMatchSnapshot();
  });
});
