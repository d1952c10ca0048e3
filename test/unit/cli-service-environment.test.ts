import { checkServiceEnvironment } from '../../src/cli/run/service-environment';
import { fakeIo } from './cli-fake-io';

describe('checkServiceEnvironment', () => {
  test('accepts an address and a token', () => {
    const io = fakeIo({ env: { SERVICE_ADDR: 'http://127.0.0.1:8200', SERVICE_TOKEN: 'tok-secret-123' } });
    expect(checkServiceEnvironment(io)).toBeUndefined();
    expect(io.stderr.text).toBe('');
  });

  test('asks for SERVICE_TOKEN when it is unset or empty', () => {
    for (const env of [{}, { SERVICE_TOKEN: '  ' }]) {
      expect(checkServiceEnvironment(fakeIo({ env }))?.message).toBe(
        'SERVICE_TOKEN is not set: export the service token as SERVICE_TOKEN (secretform never takes it on the command line)',
      );
    }
  });

  test('names a bad variable without quoting the token', () => {
    const problem = checkServiceEnvironment(fakeIo({ env: { SERVICE_ADDR: 'ftp://nowhere', SERVICE_TOKEN: 'tok-secret-123' } }))?.message;
    expect(problem).toContain('SERVICE_ADDR');
    expect(problem).not.toContain('tok-secret-123');
  });

  test('passes the client settings warnings to stderr', () => {
    const io = fakeIo({ env: { SERVICE_ADDR: 'http://127.0.0.1:8200', SERVICE_TOKEN: 't', SERVICE_SKIP_VERIFY: 'true' } });
    expect(checkServiceEnvironment(io)).toBeUndefined();
    expect(io.stderr.text).toMatch(/^Warning: SERVICE_ADDR uses http/);
  });
});
