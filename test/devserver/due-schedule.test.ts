// The schedule that lets the dev server's tick visit only what is due: its answers must equal those of the walk
// over every object it replaced, whatever was rescheduled or deleted in between.
import { DueSchedule } from '../../src/devserver/due-schedule';

describe('DueSchedule', () => {
  it('lists the due keys in the order they were first scheduled, not by due time', () => {
    const schedule = new DueSchedule<string>();
    schedule.set('late', 30);
    schedule.set('early', 10);
    schedule.set('later', 40);
    expect(schedule.due(5)).toEqual([]);
    expect(schedule.due(30)).toEqual(['late', 'early']);
    expect(schedule.due(100)).toEqual(['late', 'early', 'later']);
  });

  it('keeps a due key due until it is rescheduled or deleted', () => {
    const schedule = new DueSchedule<string>();
    schedule.set('failing', 10);
    schedule.set('done', 10);
    expect(schedule.due(10)).toEqual(['failing', 'done']);
    schedule.set('done', 50);
    expect(schedule.due(11)).toEqual(['failing']);
    schedule.delete('failing');
    expect(schedule.due(49)).toEqual([]);
    expect(schedule.due(50)).toEqual(['done']);
  });

  it('answers at the new time when a due time moves later or earlier, keeping the first order', () => {
    const schedule = new DueSchedule<string>();
    schedule.set('a', 10);
    schedule.set('b', 100);
    schedule.set('a', 200);
    schedule.set('b', 20);
    expect(schedule.due(150)).toEqual(['b']);
    expect(schedule.due(200)).toEqual(['a', 'b']);
  });

  it('orders a key deleted and scheduled again as new', () => {
    const schedule = new DueSchedule<string>();
    schedule.set('a', 10);
    schedule.set('b', 10);
    schedule.delete('a');
    schedule.set('a', 10);
    expect(schedule.due(10)).toEqual(['b', 'a']);
  });

  it('agrees with a walk over a Map through many random reschedules and deletes', () => {
    let seed = 12345;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const schedule = new DueSchedule<number>();
    const model = new Map<number, number>();
    let now = 0;
    for (let step = 0; step < 20_000; step++) {
      const key = random(200);
      const action = random(10);
      if (action < 6) {
        const due = now + random(500);
        model.set(key, due); // a Map keeps a key's first place when its value changes
        schedule.set(key, due);
      } else if (action < 8) {
        model.delete(key);
        schedule.delete(key);
      } else {
        now += random(50);
        const expected = [...model].filter(([, due]) => due <= now).map(([k]) => k);
        expect(schedule.due(now)).toEqual(expected);
      }
    }
  });
});
