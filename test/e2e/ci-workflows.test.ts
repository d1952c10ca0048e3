/**
 * The GitHub Actions workflows of examples/ci, checked as CI would run them: every `npx secretform ...` line of
 * every `run:` step is run through the real CLI against the dev server, with the workflow's environment (GitHub
 * expressions replaced by CI-ish values), in the order a pull request goes: plan on the pull request, apply on
 * merge, then the nightly drift check (clean, then after a change outside the code). The comment script of the
 * plan workflow runs against an in-memory GitHub comments API (the edge: GitHub itself): it updates its comments
 * in place, parts in order.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { ALICE_PASSWORD, BOB_PASSWORD, createProject, runCli, transcript } from './cli-harness';
import { CI_DIR, loadWorkflow, resolveExpressions, secretformLines, shellWords, type SecretformLine } from '../support/workflow-lines';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(180_000);

const ROOT_TOKEN = 'ci-workflow-root';

describe('examples/ci workflows', () => {
  let server: DevServer;
  let project: string;
  const workflows = readdirSync(CI_DIR).filter((name) => name.endsWith('.yml')).sort();

  beforeAll(async () => {
    server = await startDevServer({ port: 0, rootToken: ROOT_TOKEN });
    project = createProject();
  });
  afterAll(async () => {
    await server?.close();
  });

  test('there are the four pipelines (the fleet\'s is run by cli-fan-in.test.ts), and every secretform line in them tokenizes as plain words', () => {
    expect(workflows).toEqual(['secretform-apply.yml', 'secretform-drift.yml', 'secretform-fleet.yml', 'secretform-plan.yml']);
    for (const workflow of workflows) {
      const lines = secretformLines(workflow);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(shellWords(line.line, { PLAN_FILE: 'p' })[1]).toBe('secretform');
    }
    expect(() => shellWords('npx secretform plan | tee out', {})).toThrow(/shell syntax/);
  });

  test('the drift check job holds no secret of the stack: only the service address and token and the state', () => {
    const drift = loadWorkflow('secretform-drift.yml');
    for (const job of Object.values(drift.jobs)) {
      expect(Object.keys({ ...drift.env, ...job.env }).filter((name) => name !== 'DRIFT_MARKDOWN' && name !== 'DRIFT_JSON').sort()).toEqual(['SECRETFORM_STATE', 'SERVICE_ADDR', 'SERVICE_TOKEN']);
    }
  });

  test('every secretform command line runs against the dev server: plan on the pull request, apply on merge, drift check', async () => {
    const secrets: Record<string, string> = {
      SERVICE_ADDR: server.url,
      SERVICE_TOKEN: ROOT_TOKEN,
      SECRETFORM_STATE: join(project, 'shared-state', 'ci.state.json'),
      // The drift check's own secrets: a token that can only read and list, and the state's (PostgreSQL) URL.
      SERVICE_READ_ONLY_TOKEN: ROOT_TOKEN,
      SECRETFORM_STATE_URL: join(project, 'shared-state', 'ci.state.json'),
      SECRETFORM_STATE_KEY: 'ci-state-key',
      APP_ADMIN_PASSWORD: 'ci-app-admin-password',
    };
    /** The stack's own secret variables, which the example workflows list as APP_ADMIN_PASSWORD. */
    const stackSecrets = { SF_E2E_ALICE_PASSWORD: ALICE_PASSWORD };
    const run = async (line: SecretformLine, extraEnv: Record<string, string>) => {
      const stepEnv: Record<string, string> = {};
      for (const [name, value] of Object.entries(line.env)) stepEnv[name] = resolveExpressions(String(value), { secrets, env: stepEnv });
      const words = shellWords(line.line, stepEnv);
      const result = await runCli(words.slice(2), project, { PATH: process.env.PATH, HOME: process.env.HOME, ...stepEnv, ...extraEnv });
      const allowed = words.includes('--detailed-exitcode') ? [0, 2] : [0];
      if (!allowed.includes(result.code ?? -1)) {
        throw new Error(`${line.workflow} / ${line.job} / ${line.step}: \`${line.line}\` exited ${result.code}:\n${result.stderr}`);
      }
      return result;
    };

    const planLines = secretformLines('secretform-plan.yml');
    const planResults = [];
    for (const line of planLines) planResults.push(await run(line, stackSecrets));
    expect(planResults[0].code).toBe(2); // everything is to be created
    const planFile = resolveExpressions('${{ env.PLAN_FILE }}', { secrets, env: loadWorkflow('secretform-plan.yml').env! });
    expect(existsSync(join(project, planFile))).toBe(true);
    expect(readFileSync(join(project, 'secretform-plan.md'), 'utf8')).toContain('e2e/alice');
    expect((await call(server, 'GET', 'auth/userpass/users/alice')).status).toBe(404);

    // The merge job downloads the artifact into the same place (here: it is still there), then shows and applies it.
    const applyLines = secretformLines('secretform-apply.yml');
    expect(resolveExpressions('${{ env.PLAN_FILE }}', { secrets, env: loadWorkflow('secretform-apply.yml').env! })).toBe(planFile);
    for (const line of applyLines) await run(line, stackSecrets);
    expect((await call(server, 'GET', 'auth/userpass/users/alice')).status).toBe(200);

    // The drift check: no stack secret anywhere (not even the password file of the project).
    rmSync(join(project, 'user-password.txt'));
    const driftLines = secretformLines('secretform-drift.yml');
    for (const line of driftLines) expect((await run(line, {})).code).toBe(0);
    await call(server, 'POST', 'auth/userpass/users/alice', { token_ttl: '4h' });
    for (const line of driftLines) expect((await run(line, {})).code).toBe(2);
    expect(readFileSync(join(project, 'secretform-drift.md'), 'utf8')).toContain('e2e/alice');
    expect(JSON.parse(readFileSync(join(project, 'secretform-drift.json'), 'utf8'))).toMatchObject({ status: 'new_drift', stacks: [{ stack: 'e2e', drifted: [{ address: 'e2e/alice', status: 'new' }] }] });

    const everything = [...transcript, readFileSync(join(project, planFile), 'utf8')].join('\n');
    expect(everything).not.toContain(ALICE_PASSWORD);
    expect(everything).not.toContain(BOB_PASSWORD);
    expect(everything).not.toContain(ROOT_TOKEN);
  });

  test('the pull-request comment is one comment per part, updated in place on the next push, parts in order', async () => {
    const workflow = loadWorkflow('secretform-plan.yml');
    const script = workflow.jobs.plan.steps.find((step) => step.uses?.startsWith('actions/github-script'))!.with!.script;
    const dir = tempDir('secretform-ci-comment-');
    const markdown = join(dir, 'secretform-plan.md');

    // GitHub's issue comments API, in memory: ids grow, listing is in creation order.
    let nextId = 1;
    const comments: { id: number; body: string; user: string }[] = [{ id: nextId++, body: 'LGTM, a human comment', user: 'human' }];
    const calls: string[] = [];
    const github = {
      paginate: async (method: (args: unknown) => Promise<{ data: unknown[] }>, args: unknown) => (await method(args)).data,
      rest: {
        issues: {
          listComments: () => Promise.resolve({ data: comments.map((comment) => ({ ...comment })) }),
          createComment: ({ body }: { body: string }) => {
            calls.push('create');
            comments.push({ id: nextId++, body, user: 'bot' });
            return Promise.resolve();
          },
          updateComment: ({ comment_id, body }: { comment_id: number; body: string }) => {
            calls.push(`update ${comment_id}`);
            comments.find((comment) => comment.id === comment_id)!.body = body;
            return Promise.resolve();
          },
          deleteComment: ({ comment_id }: { comment_id: number }) => {
            calls.push(`delete ${comment_id}`);
            comments.splice(comments.findIndex((comment) => comment.id === comment_id), 1);
            return Promise.resolve();
          },
        },
      },
    };
    const context = { repo: { owner: 'acme', repo: 'infra' }, issue: { number: 7 } };
    const fakeProcess = { env: { PLAN_MARKDOWN: markdown } };
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
    const runScript = (parts: string[]) => {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      parts.forEach((text, i) => writeFileSync(i === 0 ? markdown : markdown.replace(/\.md$/, `.${i + 1}.md`), text));
      return new AsyncFunction('github', 'context', 'core', 'require', 'process', script)(github, context, {}, require, fakeProcess);
    };
    const bodies = () => comments.filter((comment) => comment.user === 'bot').map((comment) => comment.body.split('\n')[1]);

    await runScript(['plan A part 1', 'plan A part 2']);
    expect(bodies()).toEqual(['plan A part 1', 'plan A part 2']);
    const firstIds = comments.filter((comment) => comment.user === 'bot').map((comment) => comment.id);

    calls.length = 0;
    await runScript(['plan B part 1', 'plan B part 2', 'plan B part 3']);
    expect(bodies()).toEqual(['plan B part 1', 'plan B part 2', 'plan B part 3']);
    expect(calls).toEqual([`update ${firstIds[0]}`, `update ${firstIds[1]}`, 'create']);

    calls.length = 0;
    await runScript(['plan C, short']);
    expect(bodies()).toEqual(['plan C, short']);
    expect(comments.filter((comment) => comment.user === 'bot')[0].id).toBe(firstIds[0]);
    expect(calls.filter((call) => call.startsWith('delete'))).toHaveLength(2);

    // Someone deleted part 1 of a two-part comment: part 2 would come first, so it is re-created after part 1.
    await runScript(['plan D part 1', 'plan D part 2']);
    const partOne = comments.find((comment) => comment.body.includes('part=1'))!;
    comments.splice(comments.indexOf(partOne), 1);
    await runScript(['plan E part 1', 'plan E part 2']);
    expect(bodies()).toEqual(['plan E part 1', 'plan E part 2']);
    expect(comments[0].user).toBe('human');
  });
});
