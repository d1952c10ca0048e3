import { rerunCommand, WHOLE_RUN } from '../../src/cli/views/rerun-command';

describe('the command an error tells the user to run again', () => {
  test('a run of the only stack without targets is the bare command', () => {
    expect(rerunCommand('apply', WHOLE_RUN)).toBe('secretform apply');
  });

  test('repeats the --stack values, then the --target addresses, in the order given', () => {
    expect(rerunCommand('plan', { stacks: ['staging', 'prod'], targets: ['prod/kv/app', 'staging/userpass'] })).toBe(
      'secretform plan --stack staging --stack prod --target prod/kv/app --target staging/userpass',
    );
  });

  test('quotes for the shell a value it would expand or split, and only those', () => {
    expect(rerunCommand('apply', { stacks: ['prod-*', 'eu.west_1'], targets: ["prod-eu/kv/it's here", 'prod-eu/db:main@v2'] })).toBe(
      "secretform apply --stack 'prod-*' --stack eu.west_1 --target 'prod-eu/kv/it'\\''s here' --target prod-eu/db:main@v2",
    );
  });
});
