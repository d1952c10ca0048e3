/**
 * The bench's command line: `npm run bench [-- --quick] [--huge] [--drift] [--synth] [--sizes 1000,3000]
 * [--apply-timeout SECONDS] [--cpu-prof DIR] [--fleet] [--fleet-size 100x1000] [--fleet-cache DIR] [--one-ms]
 * [--service-addr URL] [--help]`.
 */
export interface BenchArgs {
  /** `--huge`: the 10,000 / 30,000 / 100,000 simulation (no added latency; time and peak RSS), not the targets. */
  huge?: boolean;
  /** `--drift`: only the drift rows (bench/drift.ts), at 10,000 resources unless --sizes says otherwise. */
  drift?: boolean;
  /**
   * `--synth`: the app with secretform's constructs against as many plain cdktf resources, run the same way, at
   * each of `synthShapes` (no service involved).
   */
  synth?: boolean;
  /** For `--synth`: objects per stack and stacks. */
  synthShapes?: SynthShape[];
  /** Stack sizes to measure, ascending. */
  sizes: number[];
  /** An apply that takes longer is stopped (SIGTERM, then SIGKILL) and reported as missed. */
  applyTimeoutS: number;
  /** Write a CPU profile of every secretform run into this directory. */
  cpuProfDir?: string;
  /** `--fleet [--fleet-size SxN]`: only the fleet rows (bench/fleet.ts), S stacks of N objects on 4 servers. */
  fleet?: FleetSize;
  /**
   * `--fleet-cache DIR`: where the fleet's synth outputs are kept between runs (default
   * $TMPDIR/secretform-bench-fleet-cache; bench/fleet-synth-cache.ts). Implies --fleet.
   */
  fleetCacheDir?: string;
  /** `--one-ms`: only the 1 ms row as the issue measured it (JSON report, state key set; bench/one-ms.ts). */
  oneMs?: boolean;
  /** `--service-addr URL`: the server of the 1 ms row (SERVICE_TOKEN from the environment), not a dev server process of its own. */
  serviceAddr?: string;
  /** `--help`: print USAGE and measure nothing. */
  help?: boolean;
}


export interface SynthShape {
  /** Objects per stack. */
  readonly size: number;
  readonly stacks: number;
}

export const FULL_SIZES = [1000, 3000, 10000];
export const QUICK_SIZES = [1000];
export const HUGE_SIZES = [10000, 30000, 100000];
export const DRIFT_SIZES = [10000];
export const DEFAULT_APPLY_TIMEOUT_S = 300;
/** One stack of 10,000 and a fleet of 100 stacks of 1,000 (issue 35's synth target: <= 1.5x plain cdktf at both). */
export const SYNTH_SHAPES: SynthShape[] = [{ size: 10000, stacks: 1 }, { size: 1000, stacks: 100 }];
/** With --quick: the same shapes, ten times smaller. */
export const QUICK_SYNTH_SHAPES: SynthShape[] = [{ size: 1000, stacks: 1 }, { size: 100, stacks: 10 }];

/** What `npm run bench -- --help` prints. */
export const USAGE = `usage: npm run bench [-- OPTIONS]   (or npx tsx bench/run.ts OPTIONS)
Prints each figure beside its reference measured in the same run; exits 1 when a target is missed.
  (no option)            plans and applies at 1,000, 3,000 and 10,000 resources (10 ms latency), the drift rows at 10,000
  --quick                the same at 1,000 only
  --sizes N,N            those sizes instead (whole numbers >= 100)
  --huge                 10,000 / 30,000 / 100,000 with no added latency: time and peak RSS, no targets
  --drift                the drift rows only (10,000 unless --sizes)
  --synth                synth of the app against as many plain cdktf resources (1 x 10,000 and 100 x 1,000;
                         with --quick 1 x 1,000 and 10 x 100; with --sizes one stack of each size)
  --fleet                100 stacks x 1,000 objects on 4 dev servers against a bare client
  --fleet-size SxN       that fleet size instead (implies --fleet)
  --fleet-cache DIR      where the fleet's synth outputs are kept between runs (implies --fleet)
  --one-ms               the 1 ms row (JSON report, state key set) against a bare client
  --service-addr URL     the 1 ms row against the server at URL (SERVICE_TOKEN from the environment)
  --apply-timeout S      stop an apply after S seconds and report it missed (default ${DEFAULT_APPLY_TIMEOUT_S})
  --cpu-prof DIR         write a CPU profile of every secretform run into DIR
  --help                 this text`;

/** A command line the bench cannot run: printed as a message and the usage, without a stack trace. */
export class BenchUsageError extends Error {}

export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const args: BenchArgs = { sizes: FULL_SIZES, applyTimeoutS: DEFAULT_APPLY_TIMEOUT_S };
  let sizesGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined || next.startsWith('--')) throw new BenchUsageError(`${arg} needs a value`);
      return next;
    };
    if (arg === '--help' || arg === '-h') args.help = true;
    else if (arg === '--quick') args.sizes = QUICK_SIZES;
    else if (arg === '--synth') args.synth = true;
    else if (arg === '--huge') {
      args.huge = true;
      args.sizes = HUGE_SIZES;
      args.applyTimeoutS = Math.max(args.applyTimeoutS, 1800);
    }
    else if (arg === '--drift') {
      args.drift = true;
      if (!argv.includes('--sizes')) args.sizes = DRIFT_SIZES;
    } else if (arg === '--sizes') {
      const sizes = value().split(',').map((part) => Number(part.trim()));
      if (sizes.length === 0 || sizes.some((size) => !Number.isInteger(size) || size < 100)) throw new BenchUsageError('--sizes takes whole numbers of at least 100, separated by commas');
      args.sizes = [...new Set(sizes)].sort((a, b) => a - b);
      sizesGiven = true;
    } else if (arg === '--apply-timeout') {
      const seconds = Number(value());
      if (!(seconds > 0)) throw new BenchUsageError('--apply-timeout takes a positive number of seconds');
      args.applyTimeoutS = seconds;
    } else if (arg === '--cpu-prof') args.cpuProfDir = value();
    else if (arg === '--fleet') args.fleet ??= FULL_FLEET;
    else if (arg === '--fleet-size') args.fleet = parseFleetSize(value());
    else if (arg === '--fleet-cache') {
      args.fleetCacheDir = value();
      args.fleet ??= FULL_FLEET;
    }
    else if (arg === '--one-ms') args.oneMs = true;
    else if (arg === '--service-addr') {
      const address = value();
      if (!/^https?:\/\//.test(address)) throw new BenchUsageError(`--service-addr takes an http:// or https:// address, got "${address}"`);
      args.serviceAddr = address;
      args.oneMs = true;
    } else throw new BenchUsageError(`unknown argument ${arg}; use --quick, --huge, --drift, --synth, --sizes N,N, --apply-timeout SECONDS, --cpu-prof DIR, --fleet, --fleet-size SxN, --fleet-cache DIR, --one-ms, --service-addr URL or --help`);
  }
  // --synth --sizes N,N: one stack of each size instead of the two shapes.
  if (args.synth) args.synthShapes = sizesGiven ? args.sizes.map((size) => ({ size, stacks: 1 })) : args.sizes === QUICK_SIZES ? QUICK_SYNTH_SHAPES : SYNTH_SHAPES;
  return args;
}

/** A fleet's size (`--fleet-size STACKSxOBJECTS`), on FLEET_SERVERS servers. */
export interface FleetSize {
  stacks: number;
  objects: number;
}

export const FLEET_SERVERS = 4;
/** The latency each fleet server adds to every answer. */
export const FLEET_LATENCY_MS = 10;
export const FULL_FLEET: FleetSize = { stacks: 100, objects: 1000 };

export function parseFleetSize(text: string): FleetSize {
  const match = /^(\d+)x(\d+)$/.exec(text.trim());
  const stacks = Number(match?.[1]);
  const objects = Number(match?.[2]);
  if (!match || stacks < FLEET_SERVERS || objects < 2) {
    throw new BenchUsageError(`--fleet-size takes STACKSxOBJECTS with at least ${FLEET_SERVERS} stacks and 2 objects each (e.g. 100x1000), got "${text}"`);
  }
  return { stacks, objects };
}
