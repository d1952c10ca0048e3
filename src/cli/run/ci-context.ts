/**
 * The pull-request comment's context line, read from the CI environment: GitHub Actions (GITHUB_SHA, and the run
 * at GITHUB_SERVER_URL/GITHUB_REPOSITORY/actions/runs/GITHUB_RUN_ID) or GitLab CI (CI_COMMIT_SHORT_SHA,
 * CI_PIPELINE_URL, CI_JOB_URL). Outside CI there is none, unless the plan is saved: then the line says how it is
 * applied. Read here, in the CLI, so the report stays a pure function of its options.
 */
import type { CommentContext } from '../../report';

export function commentContext(
  env: Readonly<Record<string, string | undefined>>,
  savedPlanFile: string | undefined,
  now: () => Date = () => new Date(),
): CommentContext | undefined {
  const ci = githubContext(env) ?? gitlabContext(env) ?? {};
  const applyCommand = savedPlanFile === undefined ? undefined : `secretform apply ${savedPlanFile}`;
  if (ci.commit === undefined && ci.links === undefined && applyCommand === undefined) return undefined;
  return { ...ci, time: now(), ...(applyCommand === undefined ? {} : { applyCommand }) };
}

type CiContext = Pick<CommentContext, 'commit' | 'links'>;

function githubContext(env: Readonly<Record<string, string | undefined>>): CiContext | undefined {
  if (env.GITHUB_ACTIONS !== 'true' && !env.GITHUB_SHA) return undefined;
  const context: { commit?: string; links?: { text: string; url: string }[] } = {};
  if (env.GITHUB_SHA) context.commit = env.GITHUB_SHA;
  if (env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID) {
    context.links = [{ text: `run ${env.GITHUB_RUN_ID}`, url: `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}` }];
  }
  return context;
}

function gitlabContext(env: Readonly<Record<string, string | undefined>>): CiContext | undefined {
  if (env.GITLAB_CI !== 'true' && !env.CI_COMMIT_SHORT_SHA && !env.CI_PIPELINE_URL) return undefined;
  const links = [
    env.CI_PIPELINE_URL ? { text: 'pipeline', url: env.CI_PIPELINE_URL } : undefined,
    env.CI_JOB_URL ? { text: 'job', url: env.CI_JOB_URL } : undefined,
  ].filter((link) => link !== undefined);
  return {
    ...(env.CI_COMMIT_SHORT_SHA ? { commit: env.CI_COMMIT_SHORT_SHA } : {}),
    ...(links.length > 0 ? { links } : {}),
  };
}
