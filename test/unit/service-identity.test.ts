import { describeEngineError } from '../../src/report/engine-error';
import { serviceIdentity, serviceMismatch } from '../../src/engine/setup/service-identity';
import { emptyState } from '../../src/engine/state/state-file';

describe('service identity', () => {
  test('one address written several ways is one service; another host, port, scheme or path is another', () => {
    const a = serviceIdentity('https://Vault.Example:8200/');
    expect(a).toBe('https://vault.example:8200');
    expect(serviceIdentity('https://vault.example:8200')).toBe(a);
    expect(serviceIdentity('https://vault.example:443/')).toBe('https://vault.example');
    for (const other of ['https://vault.example:8201', 'http://vault.example:8200', 'https://vault-b.example:8200', 'https://vault.example:8200/proxy']) {
      expect(serviceIdentity(other)).not.toBe(a);
    }
  });

  const input = (recorded: string | undefined, migrateState = false) => ({
    stack: 'prod',
    state: { ...emptyState('prod'), ...(recorded === undefined ? {} : { service: recorded }) },
    stateLocation: '.secretform/prod.state.json',
    service: 'http://b.example:8200',
    source: 'prod/service',
    migrateState,
  });

  test('a state of another service is refused naming both and how to move; the same, none recorded, or --migrate-state pass', () => {
    const refused = serviceMismatch(input('http://a.example:8200'));
    expect(refused?.code).toBe('service_mismatch');
    expect(describeEngineError(refused!)).toContain('stack prod: its state (.secretform/prod.state.json) was applied to the service at http://a.example:8200, but this run\'s connection (prod/service) names http://b.example:8200');
    expect(refused?.message).toContain('`secretform apply --migrate-state`');
    expect(serviceMismatch(input('http://b.example:8200'))).toBeUndefined();
    expect(serviceMismatch(input(undefined))).toBeUndefined();
    expect(serviceMismatch(input('http://a.example:8200', true))).toBeUndefined();
  });
});
