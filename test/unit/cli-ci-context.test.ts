import { commentContext } from '../../src/cli/run/ci-context';
import { contextLine } from '../../src/report/markdown-context';
import { renderMarkdown, stackReport } from '../../src/report';
import { emptyPlan, ldapConfigUpdate } from './report-plan-fixture';

const at = () => new Date('2026-11-25T20:55:42Z');

describe('the comment context from the CI environment', () => {
  it('on GitHub Actions: the short commit, a link to the run and the time', () => {
    const env = {
      GITHUB_ACTIONS: 'true', GITHUB_SHA: '0123456789abcdef0123456789abcdef01234567', GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: 'acme/infra', GITHUB_RUN_ID: '4242',
    };
    expect(contextLine(commentContext(env, undefined, at))).toBe(
      '<sub>Commit `0123456` · [run 4242](https://github.com/acme/infra/actions/runs/4242) · 2026-11-25 20:55 UTC</sub>',
    );
  });

  it('on GitLab CI: the short commit, the pipeline and job links, and how a saved plan is applied', () => {
    const env = {
      GITLAB_CI: 'true', CI_COMMIT_SHORT_SHA: 'abcd1234', CI_PIPELINE_URL: 'https://gitlab.example/acme/infra/-/pipelines/7',
      CI_JOB_URL: 'https://gitlab.example/acme/infra/-/jobs/99',
    };
    expect(contextLine(commentContext(env, 'plan.out', at))).toBe(
      '<sub>Commit `abcd123` · [pipeline](https://gitlab.example/acme/infra/-/pipelines/7) · [job](https://gitlab.example/acme/infra/-/jobs/99)' +
        ' · 2026-11-25 20:55 UTC · applies on merge with `secretform apply plan.out`</sub>',
    );
  });

  it('outside CI: nothing, or only how a saved plan is applied', () => {
    expect(commentContext({ HOME: '/root', CI: 'true' }, undefined, at)).toBeUndefined();
    expect(contextLine(commentContext({}, 'out/plan.out', at))).toBe('<sub>2026-11-25 20:55 UTC · applies on merge with `secretform apply out/plan.out`</sub>');
  });

  it('puts the context line under the status line of every part of the comment', () => {
    const plan = emptyPlan({ changes: [ldapConfigUpdate()] });
    const [text] = renderMarkdown([stackReport(plan)], { context: { commit: 'feedbeef99', time: at() } });
    expect(text.split('\n').slice(0, 3)).toEqual([
      '📝 **Changes** for stack `prod`: 0 to add, 1 to change, 0 to destroy, 0 drifted',
      '',
      '<sub>Commit `feedbee` · 2026-11-25 20:55 UTC</sub>',
    ]);
  });

  it('keeps a link that would break the markdown inside its destination', () => {
    expect(contextLine({ links: [{ text: 'run [1]', url: 'https://ci.example/a b)' }] })).toBe('<sub>[run \\[1\\]](<https://ci.example/a b)>)</sub>');
  });
});
