import { APPROVAL_QUESTION, approvalRefusal, askApproval, isInteractive } from '../../src/cli/run/approval';
import { fakeIo } from './cli-fake-io';

describe('approval', () => {
  test('only a terminal stdin is interactive', () => {
    expect(isInteractive(fakeIo({ tty: true }).stdin)).toBe(true);
    expect(isInteractive(fakeIo().stdin)).toBe(false);
  });

  test('asks the question on stdout and accepts exactly "yes"', async () => {
    const io = fakeIo({ tty: true });
    const answer = askApproval(io);
    io.stdin.write('  yes \n');
    expect(await answer).toBe(true);
    expect(io.stdout.text).toBe(`\n${APPROVAL_QUESTION}`);
    expect(APPROVAL_QUESTION).toBe("Do you want to perform these actions? Only 'yes' will be accepted: ");
  });

  test.each(['y', 'YES', 'no', ''])('refuses the answer "%s"', async (reply) => {
    const io = fakeIo({ tty: true });
    const answer = askApproval(io);
    io.stdin.write(`${reply}\n`);
    expect(await answer).toBe(false);
  });

  test('refuses when input ends without an answer', async () => {
    const io = fakeIo({ tty: true });
    const answer = askApproval(io);
    io.stdin.end();
    expect(await answer).toBe(false);
  });

  test('the refusal on a non-interactive stdin names --auto-approve', () => {
    expect(approvalRefusal('apply')).toContain('stdin is not interactive');
    expect(approvalRefusal('apply')).toContain('secretform apply --auto-approve');
    expect(approvalRefusal('destroy')).toContain('secretform destroy --auto-approve');
    expect(approvalRefusal('apply')).toBe(
      'apply needs approval, but stdin is not interactive, so secretform cannot ask for it. ' +
        'Review the plan (secretform plan) and run `secretform apply --auto-approve` to apply without asking.',
    );
  });

  test('the refusal repeats the --stack values as given and the --target addresses', () => {
    expect(approvalRefusal('apply', { stacks: ['staging', 'prod-*'], targets: ['staging/kv/app'] })).toBe(
      'apply needs approval, but stdin is not interactive, so secretform cannot ask for it. ' +
        "Review the plan (secretform plan --stack staging --stack 'prod-*' --target staging/kv/app) and run " +
        "`secretform apply --stack staging --stack 'prod-*' --target staging/kv/app --auto-approve` to apply without asking.",
    );
  });
});
