// The engine's public contract: what plan, apply, destroy, import and the state commands take (what apply and
// destroy add, and return, is run/apply-options.ts: it names the plan, which is computed above setup).
// The CLI is a thin layer over these; users can call them from code too (exported from the package root).
import type { LoadedPolicies } from '../../policy/loaded-policies';
import type { DesiredStack } from './desired';
import type { FingerprintKeySource } from '../state/fingerprint-key-source';
import type { RunLimits } from './run-limits';

/**
 * Where the desired state comes from. (The package's API also takes an in-memory cdktf stack, `{ kind: 'stack' }`,
 * and loads it with the constructs' `desiredFromStack` before calling the engine: see src/api.ts.)
 */
export type DesiredSource =
  /** A synthesized app: `<outdir>/stacks/<stack>/cdk.tf.json` (what `secretform synth` / `cdktf synth` write). */
  | { kind: 'synth-output'; outdir: string }
  /** Desired state already loaded (e.g. by `desiredFromStack`); checked again before any request. */
  | { kind: 'loaded'; desired: DesiredStack }
  /** Synthesized specs as a saved plan keeps them (the `"//".secretform` objects of `cdk.tf.json`). */
  | { kind: 'specs'; stack: string; specs: readonly unknown[]; connection?: unknown };

export interface EngineOptions {
  /** Stack name; with `synth-output` and a single stack in the output it may be omitted. */
  stack?: string;
  desired: DesiredSource;
  /**
   * State: a file path (relative to `cwd`) or a PostgreSQL URL (`postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?schema=NAME]`);
   * default `SECRETFORM_STATE` from `env`, else `.secretform/<stack>.state.json` under `cwd`.
   */
  statePath?: string;
  /** How long a command that changes state waits for another command's lock; default 0 (fail at once, naming the holder). */
  lockTimeoutMs?: number;
  /** Service address and TLS come from these variables (`SERVICE_ADDR`, `SERVICE_TOKEN`, ...); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Base directory for relative paths (state file, `SecretValue.fromFile`); default process.cwd(). */
  cwd?: string;
  /**
   * Requests in flight at once to each service address, shared by every stack of the run that talks to it;
   * default 10.
   */
  parallelism?: number;
  /**
   * The run's deadline, in ms from its start (`--timeout`; default 30 minutes): no request is sent or retried
   * after it, and a 429 (or a 503 with Retry-After) is retried after the time the server asks as often as it asks
   * within it. Time spent in `confirm` (a person reading the plan) does not count.
   */
  timeoutMs?: number;
  /**
   * The request budgets and the deadline every stack of a run shares (setup/run-limits.ts). A command over a
   * stack set makes them; give them only to share one budget across several engine calls (a drift check of many
   * stacks, one call per stack).
   */
  runLimits?: RunLimits;
  /** Limit the run to these addresses (and, for create/update, the resources they depend on). */
  targets?: string[];
  /** Report drift only; plan no change. */
  refreshOnly?: boolean;
  /**
   * The run's client sends only GET and LIST: anything else is refused inside the process before it is sent
   * (`secretform drift`). Only for runs that read (a refresh-only plan).
   */
  readOnly?: boolean;
  /** Progress for long runs (the CLI shows it on a TTY). */
  onProgress?: (event: ProgressEvent) => void;
  /** Aborting stops starting new operations; in-flight ones finish and state is saved. */
  signal?: AbortSignal;
  /**
   * Where the stack's fingerprint key is kept when SECRETFORM_STATE_KEY is not set; default a KV v2 secret on
   * the service (see state/fingerprint-key-source.ts).
   */
  fingerprintKeySource?: FingerprintKeySource;
  /**
   * Policy packs to evaluate over the plan (`loadPolicyPacks`); results land on `Plan.policy`, and a failed
   * mandatory policy makes apply refuse before any write.
   */
  policies?: LoadedPolicies;
  /**
   * The stack's objects now live on the service its connection names, not on the one its state records
   * (moved there on purpose): the run goes ahead against the new service and apply records it in the state.
   * Without it, a run whose connection names another service than the state records is refused.
   */
  migrateState?: boolean;
}

export type ProgressEvent = (
  | { kind: 'refresh'; done: number; total: number }
  /** Before the first operation of apply or destroy starts: how many will run (a replacement is two). */
  | { kind: 'operations'; total: number }
  | { kind: 'operation-start'; address: string; action: string }
  | { kind: 'operation-done'; address: string; action: string; status: 'succeeded' | 'failed' | 'skipped'; message?: string }
) & {
  /**
   * The stack the event is about, in a run over several stacks (absent in a set of one): independent stacks
   * refresh and write at the same time, each counting its own objects, so counts mean nothing without it.
   */
  stack?: string;
};
