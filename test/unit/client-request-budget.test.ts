import { RequestBudget, RequestBudgets, serverOf } from '../../src/client/request-budget';
import { RunDeadline } from '../../src/client/run-deadline';

describe('RequestBudget', () => {
  it('hands out `limit` slots at once, then one per slot given back, first come first served', async () => {
    const budget = new RequestBudget(2);
    expect(budget.take()).toBeUndefined();
    expect(budget.take()).toBeUndefined();
    const started: number[] = [];
    const third = budget.take()!.then(() => started.push(3));
    const fourth = budget.take()!.then(() => started.push(4));
    await Promise.resolve();
    expect(started).toEqual([]);
    budget.give();
    await third;
    expect(started).toEqual([3]);
    budget.give();
    await fourth;
    expect(started).toEqual([3, 4]);
    expect(budget.maxInFlight()).toBe(2);
    // Both slots given back: the next two are free at once again.
    budget.give();
    budget.give();
    expect(budget.take()).toBeUndefined();
    expect(budget.take()).toBeUndefined();
    expect(budget.take()).toBeInstanceOf(Promise);
  });

  it('refuses a limit below 1', () => {
    expect(() => new RequestBudget(0)).toThrow(/at least 1/);
    expect(() => new RequestBudgets(1.5)).toThrow(/at least 1/);
  });
});

describe('RequestBudgets', () => {
  it('gives every address of one server the same budget, and each server its own', () => {
    const budgets = new RequestBudgets(4);
    const one = budgets.for('http://127.0.0.1:8200');
    expect(budgets.for('http://127.0.0.1:8200/prefix')).toBe(one);
    expect(budgets.for('HTTP://127.0.0.1:8200')).toBe(one);
    expect(budgets.for('http://127.0.0.1:8201')).not.toBe(one);
    expect(budgets.for('https://secrets.example.com:443')).toBe(budgets.for('https://secrets.example.com'));
    expect(serverOf('https://secrets.example.com:443/v')).toBe('https://secrets.example.com');
    expect(one.take()).toBeUndefined();
    expect(budgets.maxInFlight().get('http://127.0.0.1:8200')).toBe(1);
  });
});

describe('RunDeadline', () => {
  it('counts down from its start and does not count a wait it is told to exclude', async () => {
    let now = 1000;
    const deadline = new RunDeadline(5000, '--timeout 5s', () => now);
    now = 3000;
    expect(deadline.remainingMs()).toBe(3000);
    await deadline.excluding(() => {
      now = 10_000;
      return Promise.resolve();
    });
    expect(deadline.remainingMs()).toBe(3000);
    expect(deadline.passed()).toBe(false);
    now = 13_000;
    expect(deadline.passed()).toBe(true);
    expect(deadline.remainingMs()).toBe(0);
  });

  it('refuses a timeout that is not above zero', () => {
    expect(() => new RunDeadline(0, '--timeout 0s')).toThrow(/positive/);
  });
});
