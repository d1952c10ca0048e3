// The reference a plan is compared with: a Node process that sends the same reads the plan sent, with undici's
// Pool at the same parallelism, and does nothing else (no state, no diff, no report). Its time is what any
// client pays on this machine against this server: node's start, the HTTP client, the round trips.
// Usage: SERVICE_TOKEN=... node bare-client.js READS_FILE (JSON: { url, parallelism, reads: [[method, path, query]] },
// or { servers: [{ url, parallelism, reads }] } for a fleet: each server's reads at its own parallelism, all at once).
'use strict';
const { readFileSync } = require('node:fs');
const Pool = require('undici/lib/dispatcher/pool');
const { request } = require('undici/lib/api');

async function main() {
  const file = JSON.parse(readFileSync(process.argv[2], 'utf8'));
  const servers = file.servers ?? [file];
  const failed = (await Promise.all(servers.map(({ url, parallelism, reads }) => sendReads(url, parallelism, reads)))).reduce((a, b) => a + b, 0);
  if (failed > 0) {
    process.stderr.write(`${failed} reads failed\n`);
    process.exitCode = 1;
  }
}

/** Sends `reads` to the server at `url`, `parallelism` at a time; resolves to the number that failed. */
async function sendReads(url, parallelism, reads) {
  const pool = new Pool(url, { connections: parallelism });
  const headers = { 'x-service-token': process.env.SERVICE_TOKEN };
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < reads.length) {
      const [method, path, query] = reads[next++];
      const list = method === 'LIST';
      const search = [query, list ? 'list=true' : ''].filter(Boolean).join('&');
      const response = await request.call(pool, { method: list ? 'GET' : method, path: `/v1/${path.split('/').map(encodeURIComponent).join('/')}${search ? `?${search}` : ''}`, headers });
      await response.body.text();
      // A 404 is an answer a plan reads too (the object is gone); anything else from 400 up means the server did
      // not do the read's work, and the time would not be a reference.
      if (response.statusCode >= 400 && response.statusCode !== 404) failed++;
    }
  };
  await Promise.all(Array.from({ length: parallelism }, worker));
  await pool.close();
  return failed;
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
});
