// Stops any throwaway PostgreSQL cluster a test file started and could not stop (a crash, a timeout), and removes
// the cluster template the files of the run copied (test/support/postgres.ts).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code !== 'ESRCH';
  }
}

/** The prefix of test/support/postgres.ts's TEMPLATE_PREFIX, followed by the pid of the jest run. */
const TEMPLATE_PREFIX = 'secretform-test-pg-template-';

module.exports = async function globalTeardown() {
  stopClusters();
  // This run's template, and those of runs that died; another live run's is left alone.
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(TEMPLATE_PREFIX)) continue;
    const run = Number(name.slice(TEMPLATE_PREFIX.length));
    if (run !== process.pid && isAlive(run)) continue;
    fs.rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
  }
};

function stopClusters() {
  const registry = path.join(os.tmpdir(), 'secretform-test-pg-clusters');
  let names;
  try {
    names = fs.readdirSync(registry);
  } catch {
    return;
  }
  for (const name of names) {
    const registration = path.join(registry, name);
    try {
      const { dir, bin, asRoot, run } = JSON.parse(fs.readFileSync(registration, 'utf8'));
      // This run's clusters, and those of runs that died; another jest run's live clusters are left alone.
      if (run !== process.pid && isAlive(run)) continue;
      const args = ['-D', path.join(dir, 'data'), '-m', 'immediate', '-w', 'stop'];
      spawnSync(asRoot ? 'runuser' : path.join(bin, 'pg_ctl'), asRoot ? ['-u', 'postgres', '--', path.join(bin, 'pg_ctl'), ...args] : args, { timeout: 30000 });
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // A damaged registration: nothing to stop.
    }
    fs.rmSync(registration, { force: true });
  }
}
