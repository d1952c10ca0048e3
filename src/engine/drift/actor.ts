/** Who acknowledges drift: SECRETFORM_ACTOR, else the CI's actor (GitHub, GitLab), else the OS user. */
import { userInfo } from 'node:os';

export const ACTOR_ENV = 'SECRETFORM_ACTOR';
const CI_ACTOR_VARIABLES = ['GITHUB_ACTOR', 'GITLAB_USER_LOGIN'] as const;

export function actorOf(env: NodeJS.ProcessEnv): string {
  for (const name of [ACTOR_ENV, ...CI_ACTOR_VARIABLES]) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  try {
    return userInfo().username;
  } catch {
    // A uid without a passwd entry (some containers).
    return `uid ${process.getuid?.() ?? 'unknown'}`;
  }
}
