// The bench is not part of the test suite; this checks that its command line is understood (and, through the
// type-check of `npm test`, that bench/*.ts compiles).
import { BenchUsageError, DEFAULT_APPLY_TIMEOUT_S, FULL_SIZES, parseBenchArgs, QUICK_SIZES, QUICK_SYNTH_SHAPES, SYNTH_SHAPES, USAGE } from '../../bench/args';
import { mixFor } from '../../bench/mix';

describe('bench arguments', () => {
  it('measures 1,000 / 3,000 / 10,000 by default and 1,000 only with --quick', () => {
    expect(FULL_SIZES).toEqual([1000, 3000, 10000]);
    expect(parseBenchArgs([])).toEqual({ sizes: FULL_SIZES, applyTimeoutS: DEFAULT_APPLY_TIMEOUT_S });
    expect(parseBenchArgs(['--quick']).sizes).toEqual(QUICK_SIZES);
    expect(QUICK_SIZES).toEqual([1000]);
  });

  it('runs the 10,000 / 30,000 / 100,000 simulation with --huge, with room for its long applies', () => {
    const huge = parseBenchArgs(['--huge']);
    expect(huge).toMatchObject({ huge: true, sizes: [10000, 30000, 100000] });
    expect(huge.applyTimeoutS).toBeGreaterThanOrEqual(1800);
  });

  it('measures only the drift rows with --drift, at 10,000 unless --sizes says otherwise', () => {
    expect(parseBenchArgs(['--drift'])).toMatchObject({ drift: true, sizes: [10000] });
    expect(parseBenchArgs(['--sizes', '1000', '--drift'])).toMatchObject({ drift: true, sizes: [1000] });
    expect(parseBenchArgs(['--drift', '--sizes', '1000'])).toMatchObject({ drift: true, sizes: [1000] });
  });

  it('compares synth with plain cdktf with --synth: 1 x 10,000 and 100 x 1,000, ten times smaller with --quick', () => {
    expect(SYNTH_SHAPES).toEqual([{ size: 10000, stacks: 1 }, { size: 1000, stacks: 100 }]);
    expect(parseBenchArgs(['--synth'])).toMatchObject({ synth: true, synthShapes: SYNTH_SHAPES });
    expect(parseBenchArgs(['--synth', '--quick']).synthShapes).toEqual(QUICK_SYNTH_SHAPES);
    expect(QUICK_SYNTH_SHAPES).toEqual([{ size: 1000, stacks: 1 }, { size: 100, stacks: 10 }]);
    expect(parseBenchArgs(['--synth', '--sizes', '5000,2000']).synthShapes).toEqual([{ size: 2000, stacks: 1 }, { size: 5000, stacks: 1 }]);
    expect(parseBenchArgs([]).synthShapes).toBeUndefined();
  });

  it('takes sizes, an apply time limit and a profile directory', () => {
    expect(parseBenchArgs(['--sizes', '3000,1000,3000', '--apply-timeout', '60', '--cpu-prof', '/tmp/p'])).toEqual({ sizes: [1000, 3000], applyTimeoutS: 60, cpuProfDir: '/tmp/p' });
  });

  it('rejects what it does not understand, saying what it takes', () => {
    expect(() => parseBenchArgs(['--fast'])).toThrow(/unknown argument --fast; use --quick/);
    expect(() => parseBenchArgs(['--sizes', 'ten'])).toThrow(/whole numbers of at least 100/);
    expect(() => parseBenchArgs(['--apply-timeout'])).toThrow(/needs a value/);
    expect(() => parseBenchArgs(['--apply-timeout', '0'])).toThrow(/positive number of seconds/);
    expect(() => parseBenchArgs(['--fast'])).toThrow(BenchUsageError);
  });

  it('takes --help, and the usage names every option the parser takes', () => {
    expect(parseBenchArgs(['--help'])).toMatchObject({ help: true });
    expect(parseBenchArgs(['-h'])).toMatchObject({ help: true });
    const named = [...USAGE.matchAll(/^ {2}(--[a-z-]+)/gm)].map((match) => match[1]);
    expect(named).toEqual(['--quick', '--sizes', '--huge', '--drift', '--synth', '--fleet', '--fleet-size', '--fleet-cache', '--one-ms', '--service-addr', '--apply-timeout', '--cpu-prof', '--help']);
    const valued: Record<string, string> = { '--sizes': '1000', '--fleet-size': '8x100', '--fleet-cache': '/tmp/c', '--service-addr': 'http://a:1', '--apply-timeout': '5', '--cpu-prof': '/tmp/p' };
    for (const option of named) expect(() => parseBenchArgs(option in valued ? [option, valued[option]] : [option])).not.toThrow();
  });

  it('takes --fleet (100 stacks x 1,000) and --fleet-size STACKSxOBJECTS', () => {
    expect(parseBenchArgs(['--fleet']).fleet).toEqual({ stacks: 100, objects: 1000 });
    expect(parseBenchArgs(['--fleet-size', '40x250']).fleet).toEqual({ stacks: 40, objects: 250 });
    expect(parseBenchArgs(['--fleet-size', '40x250', '--fleet']).fleet).toEqual({ stacks: 40, objects: 250 });
    expect(() => parseBenchArgs(['--fleet-size', '2x100'])).toThrow(/at least 4 stacks and 2 objects each/);
    expect(() => parseBenchArgs(['--fleet-size', '40'])).toThrow(/STACKSxOBJECTS/);
  });

  it('takes --fleet-cache DIR (where the fleet keeps its synth outputs), which implies --fleet', () => {
    expect(parseBenchArgs(['--fleet-cache', '/tmp/c'])).toMatchObject({ fleet: { stacks: 100, objects: 1000 }, fleetCacheDir: '/tmp/c' });
    expect(parseBenchArgs(['--fleet-size', '8x250', '--fleet-cache', '/tmp/c'])).toMatchObject({ fleet: { stacks: 8, objects: 250 }, fleetCacheDir: '/tmp/c' });
    expect(() => parseBenchArgs(['--fleet-cache'])).toThrow(/needs a value/);
  });

  it('takes --one-ms, and --service-addr URL for it', () => {
    expect(parseBenchArgs(['--one-ms', '--sizes', '10000'])).toMatchObject({ oneMs: true, sizes: [10000] });
    expect(parseBenchArgs(['--service-addr', 'http://10.0.0.5:8200'])).toMatchObject({ oneMs: true, serviceAddr: 'http://10.0.0.5:8200' });
    expect(() => parseBenchArgs(['--service-addr', 'secrets:8200'])).toThrow(/http:\/\/ or https:\/\/ address, got "secrets:8200"/);
  });

  it('scales the mixed stack to about the requested number of resources', () => {
    for (const size of FULL_SIZES) {
      const mix = mixFor(size);
      const total = mix.users + mix.staticRoles + mix.dynamicRoles + mix.librarySets + mix.cloudRoles + 5 * mix.destinationsPerType + mix.associations + 5;
      expect(Math.abs(total - size) / size).toBeLessThan(0.01);
    }
  });
});
