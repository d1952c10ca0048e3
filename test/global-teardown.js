// Stops any throwaway PostgreSQL cluster a test file started and could not stop (a crash, a timeout).
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

module.exports = async function globalTeardown() {
  const registry = path.join(os.tmpdir(), 'secretform-test-pg-clusters');
  let names = [];
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
};
