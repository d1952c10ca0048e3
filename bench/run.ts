// `npm run bench`: plans 1,000 resources of mixed types against the dev server with 10 ms added latency, and
// prints the wall time (median of three plans), the requests sent, peak memory, and two baselines measured in
// the same run:
// - the floor: requests x latency / parallelism (what the latency alone costs with perfect parallelism);
// - raw transport: the same number of GETs sent straight through the HTTP client at the same parallelism
//   (on this machine setTimeout(10) fires after ~11 ms, so no client reaches the floor exactly).
// The stack is synthesized and applied once as setup (not measured); each plan then reads cdktf.out, refreshes
// every resource and diffs, as `secretform plan --no-synth` does.
// Target: plan within 1.5x of the floor and under 300 MB peak memory. The dev server runs on a worker thread of
// this process (its own core, like a real service), so the memory figure is an upper bound for the engine.
import { App, TerraformStack } from 'cdktf';
import pLimit from 'p-limit';
import { ServiceClient } from '../src/client';
import {
  AuthMount,
  CloudSecretBackend,
  CloudSecretRole,
  LdapDynamicRole,
  LdapLibrarySet,
  LdapSecretBackend,
  LdapStaticRole,
  SyncAssociation,
  SyncCloud1SmDestination,
  SyncCloud2KvDestination,
  SyncCloud3SmDestination,
  SyncRepohostDestination,
  SyncWebhostProjectDestination,
  UserpassUser,
} from '../src/constructs';
import type { Seed } from '../src/devserver';
import { Worker } from 'node:worker_threads';
import { apply, plan, type EngineOptions } from '../src/engine';
import { SecretValue } from '../src/secret-value';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const LATENCY_MS = 10;
const PARALLELISM = 10;
const TARGET_RATIO = 1.5;
const TARGET_PEAK_MB = 300;
const PLAN_RUNS = 3;

/** How many resources of each kind (plus 5 fixed ones: kv mount, auth mount, 2 engine mounts, 2 configs). */
const MIX = { users: 300, staticRoles: 180, dynamicRoles: 100, librarySets: 45, cloudRoles: 150, destinationsPerType: 10, associations: 170 };

const DOMAIN = 'dc=bench,dc=org';

/** The secrets the stack reads from the environment (the engine resolves them at plan time). */
const SECRET_ENV: Record<string, string> = {
  BENCH_SECRET_0: 'bench-bind-password',
  BENCH_SECRET_1: 'bench-client-secret',
  BENCH_SECRET_2: 'AKIABENCH',
  BENCH_SECRET_3: 'bench-secret-key',
  BENCH_SECRET_4: 'bench-kv-secret',
  BENCH_SECRET_5: '{"type":"service_account"}',
  BENCH_SECRET_6: 'bench-repo-token',
  BENCH_SECRET_7: 'bench-web-token',
  ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`BENCH_PASSWORD_${i}`, `password-${i}`])),
};

function seed(): Seed {
  const accounts = MIX.staticRoles + MIX.librarySets;
  return {
    // The associations' secrets live in a KV mount the platform already has (not managed by the bench stack).
    mounts: [{ path: 'kv', type: 'kv', options: { version: '2' } }],
    kv: Array.from({ length: MIX.associations }, (_, i) => ({ mount: 'kv', path: `app-${i}`, data: { value: `v${i}` } })),
    directory: [
      { dn: DOMAIN, attributes: { objectClass: ['domain'], dc: ['bench'] } },
      { dn: `cn=admin,${DOMAIN}`, attributes: { objectClass: ['person'], cn: ['admin'], sn: ['admin'], userPassword: ['bench-bind-password'] } },
      { dn: `ou=users,${DOMAIN}`, attributes: { objectClass: ['organizationalUnit'], ou: ['users'] } },
      { dn: `ou=dynamic,${DOMAIN}`, attributes: { objectClass: ['organizationalUnit'], ou: ['dynamic'] } },
      ...Array.from({ length: accounts }, (_, i) => ({
        dn: `cn=account-${i},ou=users,${DOMAIN}`,
        attributes: { objectClass: ['person'], cn: [`account-${i}`], sn: ['bench'], userPassword: [`initial-${i}`] },
      })),
    ],
  };
}

/** Synthesizes the bench stack into `outdir`, as `secretform synth` would. */
function synthesizeBenchStack(outdir: string): void {
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'bench');
  const userpass = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  const ldap = new LdapSecretBackend(stack, 'ldap', {
    binddn: `cn=admin,${DOMAIN}`,
    bindpass: SecretValue.fromEnv('BENCH_SECRET_0'),
    userdn: `ou=users,${DOMAIN}`,
  });
  const cloud = new CloudSecretBackend(stack, 'cloud', {
    subscriptionId: '11111111-2222-3333-4444-555555555555',
    tenantId: '66666666-7777-8888-9999-000000000000',
    clientId: 'bench-client',
    clientSecret: SecretValue.fromEnv('BENCH_SECRET_1'),
  });
  for (let i = 0; i < MIX.users; i++) {
    new UserpassUser(stack, `user-${i}`, {
      mount: userpass,
      username: `user-${i}`,
      password: SecretValue.fromEnv(`BENCH_PASSWORD_${i % 10}`),
      tokenPolicies: ['default', `team-${i % 7}`],
      tokenTtl: '1h',
    });
  }
  for (let i = 0; i < MIX.staticRoles; i++) {
    new LdapStaticRole(stack, `static-${i}`, { backend: ldap, name: `static-${i}`, username: `account-${i}`, rotationPeriod: '24h' });
  }
  for (let i = 0; i < MIX.dynamicRoles; i++) {
    new LdapDynamicRole(stack, `dynamic-${i}`, {
      backend: ldap,
      name: `dynamic-${i}`,
      creationLdif: `dn: cn={{.Username}},ou=dynamic,${DOMAIN}\nobjectClass: person\ncn: {{.Username}}\nsn: dyn\nuserPassword: {{.Password}}\n`,
      deletionLdif: `dn: cn={{.Username}},ou=dynamic,${DOMAIN}\nchangetype: delete\n`,
      defaultTtl: '1h',
      maxTtl: '24h',
    });
  }
  for (let i = 0; i < MIX.librarySets; i++) {
    new LdapLibrarySet(stack, `library-${i}`, { backend: ldap, name: `library-${i}`, serviceAccountNames: [`account-${MIX.staticRoles + i}`] });
  }
  for (let i = 0; i < MIX.cloudRoles; i++) {
    new CloudSecretRole(stack, `cloud-role-${i}`, {
      backend: cloud,
      name: `cloud-role-${i}`,
      cloudRoles: [{ scope: `/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/rg-${i}`, roleName: 'Reader' }],
      ttl: '1h',
      maxTtl: '2h',
    });
  }
  const destinations = [];
  for (let i = 0; i < MIX.destinationsPerType; i++) {
    destinations.push(
      new SyncCloud1SmDestination(stack, `cloud1-${i}`, { name: `cloud1-${i}`, region: 'eu-west-1', accessKeyId: SecretValue.fromEnv('BENCH_SECRET_2'), secretAccessKey: SecretValue.fromEnv('BENCH_SECRET_3') }),
      new SyncCloud2KvDestination(stack, `cloud2-${i}`, { name: `cloud2-${i}`, keyVaultUri: `https://vault-${i}.example.net`, clientId: 'bench-client', clientSecret: SecretValue.fromEnv('BENCH_SECRET_4'), tenantId: 'bench-tenant' }),
      new SyncCloud3SmDestination(stack, `cloud3-${i}`, { name: `cloud3-${i}`, credentials: SecretValue.fromEnv('BENCH_SECRET_5'), projectId: `project-${i}` }),
      new SyncRepohostDestination(stack, `repohost-${i}`, { name: `repohost-${i}`, accessToken: SecretValue.fromEnv('BENCH_SECRET_6'), repositoryOwner: 'bench', repositoryName: `repo-${i}` }),
      new SyncWebhostProjectDestination(stack, `webhost-${i}`, { name: `webhost-${i}`, accessToken: SecretValue.fromEnv('BENCH_SECRET_7'), projectId: `prj-${i}`, deploymentEnvironments: ['production'] }),
    );
  }
  for (let i = 0; i < MIX.associations; i++) {
    new SyncAssociation(stack, `association-${i}`, { destination: destinations[i % destinations.length], mount: 'kv', secretName: `app-${i}` });
  }
  app.synth();
}

function memoryPeakSampler(): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const seconds = (ms: number) => (ms / 1000).toFixed(2);

/** The dev server in a worker thread: its URL, its request count, and a way to stop it. */
interface BenchServer {
  url: string;
  requestCount(): Promise<number>;
  close(): Promise<void>;
}

function startServerThread(options: object): Promise<BenchServer> {
  const worker = new Worker(join(__dirname, 'dev-server-worker.ts'), { workerData: options, execArgv: ['--require', 'tsx/cjs'] });
  const next = (kind: string) =>
    new Promise<any>((resolve, reject) => {
      const onMessage = (message: any) => {
        if (message.kind === 'error') reject(new Error(message.message));
        else if (message.kind === kind) {
          worker.off('message', onMessage);
          resolve(message);
        }
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
  return next('ready').then(({ url }) => ({
    url,
    requestCount: () => {
      const reply = next('count');
      worker.postMessage({ kind: 'count' });
      return reply.then((m) => m.count as number);
    },
    close: async () => {
      const closed = next('closed');
      worker.postMessage({ kind: 'close' });
      await closed;
      await worker.terminate();
    },
  }));
}

async function main(): Promise<void> {
  const rootToken = 'bench-root-token';
  const server = await startServerThread({ port: 0, rootToken, seed: seed(), latencyMs: LATENCY_MS });
  try {
    const env = { ...SECRET_ENV, SERVICE_ADDR: server.url, SERVICE_TOKEN: rootToken, SECRETFORM_STATE_KEY: 'bench-state-key' };
    // Setup, not measured: synthesize once, like `secretform synth`; the plan then reads cdktf.out like
    // `secretform plan --no-synth` does.
    const outdir = mkdtempSync(join(tmpdir(), 'secretform-bench-'));
    synthesizeBenchStack(outdir);
    const options: EngineOptions = {
      stack: 'bench',
      desired: { kind: 'synth-output', outdir },
      statePath: join(mkdtempSync(join(tmpdir(), 'secretform-bench-state-')), 'bench.state.json'),
      env,
      parallelism: PARALLELISM,
    };

    let started = Date.now();
    const applied = await apply(options);
    if (!applied.ok) throw applied.error;
    if (!applied.value.succeeded) {
      const failed = applied.value.outcomes.filter((o) => o.status !== 'succeeded').slice(0, 5);
      throw new Error(`setup apply failed: ${failed.map((o) => `${o.address}: ${o.message}`).join('; ')}`);
    }
    const resources = applied.value.outcomes.length;
    const applyMs = Date.now() - started;

    // The measured run: a plan of the applied stack (the daily case: refresh everything, find nothing to do),
    // PLAN_RUNS times; the median is reported, with the range, so one noisy run does not decide.
    global.gc?.();
    const memory = memoryPeakSampler();
    const planTimes: number[] = [];
    let requests = 0;
    let changes = 0;
    for (let run = 0; run < PLAN_RUNS; run++) {
      const requestsBefore = await server.requestCount();
      started = Date.now();
      const planned = await plan(options);
      planTimes.push(Date.now() - started);
      if (!planned.ok) throw planned.error;
      requests = (await server.requestCount()) - requestsBefore;
      changes = Math.max(changes, planned.value.changes.filter((c) => c.action !== 'no-op').length);
    }
    const peakBytes = memory.stop();
    planTimes.sort((a, b) => a - b);
    const planMs = planTimes[Math.floor(planTimes.length / 2)];

    // Baseline 1: the floor set by latency alone.
    const floorMs = (requests * LATENCY_MS) / PARALLELISM;
    // Baseline 2: the same number of reads sent straight through the HTTP client, same parallelism.
    const client = ServiceClient.fromEnv(env, { maxConnections: PARALLELISM });
    if (!client.ok) throw new Error(client.error.message);
    const limit = pLimit(PARALLELISM);
    started = Date.now();
    await Promise.all(
      Array.from({ length: requests }, (_, i) => limit(() => client.client.readObject(`auth/userpass/users/user-${i % MIX.users}`))),
    );
    const rawMs = Date.now() - started;
    await client.client.close();

    const ratio = planMs / floorMs;
    const peakMb = peakBytes / 1024 / 1024;
    const lines = [
      `resources                 ${resources}`,
      `setup apply               ${seconds(applyMs)} s`,
      `plan wall time (median)   ${seconds(planMs)} s   (runs: ${planTimes.map(seconds).join(', ')} s; ${changes} changes: expected 0)`,
      `requests sent by plan     ${requests}`,
      `floor (req x ${LATENCY_MS} ms / ${PARALLELISM})   ${seconds(floorMs)} s`,
      `raw client, same reads    ${seconds(rawMs)} s`,
      `plan / floor              ${ratio.toFixed(2)}x   (target <= ${TARGET_RATIO}x)  ${ratio <= TARGET_RATIO ? 'OK' : 'MISSED'}`,
      `plan / raw client         ${(planMs / rawMs).toFixed(2)}x`,
      `peak memory (RSS)         ${mb(peakBytes)} MB   (target < ${TARGET_PEAK_MB} MB, includes the dev server thread)  ${peakMb < TARGET_PEAK_MB ? 'OK' : 'MISSED'}`,
    ];
    process.stdout.write(`secretform bench: plan of ${resources} resources, ${LATENCY_MS} ms latency, parallelism ${PARALLELISM}\n${lines.join('\n')}\n`);
    if (changes !== 0) process.exitCode = 1;
  } finally {
    await server.close();
  }
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
