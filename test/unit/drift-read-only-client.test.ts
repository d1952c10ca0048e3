// A run with EngineOptions.readOnly (what `secretform drift` runs with) gets a client that refuses writes in the
// process: the address below has nothing listening, so a request that was sent would fail as a connection error.
import { clientFor, prepareRun } from '../../src/engine/setup/run-context';

const env = { SERVICE_ADDR: 'http://127.0.0.1:9', SERVICE_TOKEN: 'read-only-unit' };

async function postWith(readOnly: boolean): Promise<string> {
  const context = prepareRun({ desired: { kind: 'specs', stack: 'unit', specs: [] }, env, readOnly });
  if (!context.ok) throw context.error;
  const client = clientFor(context.value);
  if (!client.ok) throw client.error;
  try {
    const posted = await client.value.post('auth/userpass/users/alice', { token_ttl: 60 });
    return posted.ok ? 'sent' : posted.error.code;
  } finally {
    await client.value.close();
  }
}

test('a read-only run refuses a write before sending it; another run sends it', async () => {
  expect(await postWith(true)).toBe('method_refused');
  expect(await postWith(false)).toBe('connection');
});
