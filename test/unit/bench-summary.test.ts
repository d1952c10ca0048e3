// The bench's last line says what the run earned: rows missed, every target met, or no target to meet at all
// (`--one-ms --sizes 1000` measures rows whose targets are at 10,000; "every target met" there claimed a pass).
import { summaryLine, type Row } from '../../bench/run';

const noTarget: Row = { figure: 'plan 1 ms', size: 1000, seconds: 2, referenceSeconds: 1.5, targetKind: 'reference' };
const met: Row = { figure: 'plan 1 ms', size: 10000, seconds: 2, referenceSeconds: 1.5, target: 1.5, targetKind: 'reference' };
const missed: Row = { ...met, seconds: 3 };
const rssMet: Row = { figure: 'fleet plan', size: 1000, seconds: 9, peakRssMb: 800, rssTargetMb: 1500 };

describe('the bench summary line', () => {
  it('says that no target applies when no row measured carries one', () => {
    expect(summaryLine([noTarget])).toEqual({ line: 'no target applies to the rows measured (the figures are for reference)', missed: false });
    expect(summaryLine([])).toEqual({ line: 'no target applies to the rows measured (the figures are for reference)', missed: false });
  });

  it('says every target was met when a row with a time or memory target passed', () => {
    expect(summaryLine([noTarget, met])).toEqual({ line: 'every target met', missed: false });
    expect(summaryLine([rssMet])).toEqual({ line: 'every target met', missed: false });
  });

  it('names the rows that missed, a failed check among them, and asks for a failing exit', () => {
    expect(summaryLine([met, missed])).toEqual({ line: 'MISSED: plan 1 ms at 10000', missed: true });
    expect(summaryLine([{ ...noTarget, failed: 'changes after apply' }])).toEqual({ line: 'MISSED: plan 1 ms at 1000', missed: true });
  });
});
