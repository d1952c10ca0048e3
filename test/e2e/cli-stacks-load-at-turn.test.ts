/**
 * A plan over several stacks loads each stack's desired state when its turn comes, where the synth-time digest
 * record vouches for the stack's file (engine/stacks/stack-preparation.ts): before its first request it checks the
 * connections and state locations of every stack, not their desired states. So a stack whose file the record
 * vouches for but which fails the engine's checks all the same fails alone, and the others are planned; apply
 * still checks every stack's desired state before any request, and so does a plan where no record vouches.
 * Two independent stacks (blue, green) on one dev server, through the real binary.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { digestRecordOf, writeDigestRecord } from '../../src/engine/setup/desired-digest-record';
import { cliEnv, createTwoStackProject, runCli } from './cli-harness';

jest.setTimeout(120_000);

let server: DevServer;
let project: string;
let greenDir: string;

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'load-at-turn-root' });
  project = createTwoStackProject();
  const synth = await runCli(['synth'], project, cliEnv(server));
  expect(synth.code).toBe(0);
  greenDir = join(project, 'cdktf.out', 'stacks', 'green');
  // green's mount given an id its spec does not give: a spec the file's format allows (the digest record is made
  // for it) and the engine's checks refuse.
  const file = join(greenDir, 'cdk.tf.json');
  const configuration = JSON.parse(readFileSync(file, 'utf8')) as { resource: Record<string, Record<string, { '//'?: { secretform?: { address: string; id: string } } }>> };
  const mount = Object.values(configuration.resource.terraform_data).find((entry) => entry['//']?.secretform?.address === 'green/kv')!;
  mount['//']!.secretform!.id = 'sys/mounts/somewhere-else';
  writeFileSync(file, JSON.stringify(configuration, null, 2));
  writeDigestRecord(greenDir, digestRecordOf(configuration, file));
});

afterAll(async () => {
  await server?.close();
});

const requestsSince = (start: number) => server.requestLog.slice(start).map((entry) => entry.path);

test('a plan over every stack plans blue and fails green at its turn, when the record vouches for its file', async () => {
  const before = server.requestLog.length;
  const planned = await runCli(['plan', '--stack', '*', '--no-synth'], project, cliEnv(server));
  expect(planned.code).toBe(1);
  expect(planned.stdout + planned.stderr).toContain('id "sys/mounts/somewhere-else" does not match its spec (expected "sys/mounts/green-apps")');
  // blue was read and planned; green sent nothing.
  const paths = requestsSince(before);
  expect(paths.some((path) => path.includes('blue-'))).toBe(true);
  expect(paths.filter((path) => path.includes('green-'))).toEqual([]);
  expect(planned.stdout).toMatch(/blue[\s\S]*to add/);
});

test('apply over every stack refuses before any request: every desired state is checked first', async () => {
  const before = server.requestLog.length;
  const applied = await runCli(['apply', '--stack', '*', '--no-synth', '--auto-approve'], project, cliEnv(server));
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain('id "sys/mounts/somewhere-else" does not match its spec');
  expect(requestsSince(before)).toEqual([]);
});

test('without the record a plan over every stack checks every desired state before any request, as before', async () => {
  rmSync(join(greenDir, 'secretform-digest.json'));
  const before = server.requestLog.length;
  const planned = await runCli(['plan', '--stack', '*', '--no-synth'], project, cliEnv(server));
  expect(planned.code).toBe(1);
  expect(planned.stderr).toContain('id "sys/mounts/somewhere-else" does not match its spec');
  expect(requestsSince(before)).toEqual([]);
});
