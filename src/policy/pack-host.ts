/**
 * The pack host: where the code of policy pack files runs, away from the run's secrets and bounded in time.
 *
 * Pack files are code a pull request can add (cdktf.json names them), so they are treated as the app's synth is:
 * - a child process with the synth child's environment (synth-environment.ts: the process basics and the
 *   variables the user names, never SERVICE_*, SECRETFORM_* or a secret's variable); a worker thread could not
 *   hide the token, which any thread of this process can read back from /proc/self/environ;
 * - inside it, a worker thread runs the packs, watched by the host process's own thread, which runs no pack code:
 *   so a deadline is always enforced, the check it stopped is named, and the host ends when secretform does
 *   (its IPC channel closes), even when secretform is killed in the middle of an endless loop;
 * - everything it says (answers, errors, descriptions, console output) is scrubbed of the secrets known here,
 *   and of each run's secrets (the client's scrubbing of server text) once a run has asked it something;
 * - secretform waits on it with a timer of its own (the deadline and a grace period), so a host that stops
 *   answering fails the run rather than letting the process end with nothing said; an abort (SIGINT, SIGTERM)
 *   kills it at once.
 * Requests go one at a time (the stacks of a run ask in turn): a deadline then measures one plan's checks.
 */
import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SecretScrubber } from '../client/secret-scrubber';
import type { HostAnswer, HostEvaluation, HostFailure, PolicyHost } from './loaded-policies';
import { hostedCheckKey } from './loaded-policies';
import { PolicyLoadError } from './pack-module';
import { readAnswer, type HostAnswerMessage, type HostRequest, type PolicyDescription } from './pack-host-protocol';
import type { PolicyViolation } from './policy';
import { formatDuration, TIMEOUT_ADVICE } from './timeout-advice';

/**
 * The host process's entry, next to this file once compiled: from dist/policy/ and from the CLI's bundle in
 * dist/cli/ alike (as src/cli/version.ts finds package.json).
 */
const HOST_ENTRY = path.join(__dirname, '..', 'policy', 'pack-host-process.js');

/** How much longer than the deadline secretform waits for the host to report it (the host's own timer goes first). */
const GRACE_MS = 5000;

export interface PackHostOptions {
  /** The pack files, as given (relative to `cwd`). */
  readonly packs: readonly string[];
  readonly cwd: string;
  /** The host's whole environment (the synth child's). */
  readonly env: Readonly<Record<string, string>>;
  /** Secret values known before any run: removed from everything the host says. */
  readonly secrets: readonly string[];
  readonly timeoutMs: number;
  /** Where the packs' console output goes (scrubbed), line by line: never stdout, which carries reports. */
  readonly output: { write(chunk: string): unknown };
}

/** Starts the host and loads the packs in it: their policies, in order; a PolicyLoadError naming the pack otherwise. */
export async function startPackHost(options: PackHostOptions): Promise<{ host: PolicyHost; policies: PolicyDescription[] }> {
  if (!fs.existsSync(HOST_ENTRY)) {
    throw new PolicyLoadError(`cannot run policy packs: ${HOST_ENTRY} is missing (secretform's dist/ is incomplete: reinstall it, or run \`npm run build\` in a checkout)`);
  }
  const child = fork(HOST_ENTRY, [], { cwd: options.cwd, env: { ...options.env }, execArgv: [], stdio: ['ignore', 'pipe', 'pipe', 'ipc'], serialization: 'json' });
  const host = new PackHost(child, options);
  const answer = await host.request({ kind: 'load', packs: [...options.packs], cwd: options.cwd, timeoutMs: options.timeoutMs }, undefined);
  if (answer.kind === 'loaded') {
    const policies = answer.policies.filter((policy) => policy.pack < options.packs.length);
    for (const policy of policies) {
      // An id is shown and matched as it is: one that quotes a secret cannot be shown, so the pack is refused.
      if (host.scrub(policy.id) !== policy.id) throw new PolicyLoadError(`policy pack ${options.packs[policy.pack]}: a policy id holds a secret value of this environment; ids are names, not data`);
      policy.description = host.scrub(policy.description);
    }
    return { host, policies };
  }
  await host.close();
  const pack = answer.kind === 'failed' && answer.pack !== undefined ? options.packs[answer.pack] : undefined;
  if (answer.kind === 'failed' && answer.why === 'load') throw new PolicyLoadError(host.scrub(answer.detail));
  if (answer.kind === 'failed' && answer.why === 'timeout' || answer.kind === 'gone' && answer.why === 'timeout') {
    throw new PolicyLoadError(`policy pack ${pack ?? options.packs.join(', ')}: did not finish loading within ${formatDuration(options.timeoutMs)} (its code loops, or waits for something that never comes); the policies failed closed and nothing was run. Fix the pack (or remove it); ${TIMEOUT_ADVICE}`);
  }
  const detail = answer.kind === 'failed' ? host.scrub(answer.detail) : answer.kind === 'gone' ? answer.detail : 'it answered with something else than its policies';
  throw new PolicyLoadError(`policy pack ${pack ?? options.packs.join(', ')}: cannot be loaded: ${detail}`);
}

type Reply = HostAnswerMessage | { kind: 'gone'; why: 'timeout' | 'interrupted' | 'ended'; detail: string };

class PackHost implements PolicyHost {
  readonly #child: ChildProcess;
  readonly #scrubber: SecretScrubber;
  /** The scrubbing of every run that asked something (their secrets are as much the host's to hide). */
  readonly #runScrubs = new Set<(text: string) => string>();
  /** Why the host is gone, once it is. */
  #gone: string | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #nextId = 0;
  /** Called with every answer, and with the host's end: the request waiting for them. */
  #listener: ((reply: Reply) => void) | undefined;
  readonly #killAtExit = (): void => {
    this.#child.kill('SIGKILL');
  };

  constructor(child: ChildProcess, options: PackHostOptions) {
    this.#child = child;
    this.#scrubber = new SecretScrubber(options.secrets);
    // The host never keeps secretform alive by itself: a request in flight does, with its timer.
    child.unref();
    child.channel?.unref();
    for (const stream of [child.stdout, child.stderr]) {
      if (stream === null) continue;
      (stream as unknown as { unref?: () => void }).unref?.();
      this.#forwardLines(stream, options.output);
    }
    child.on('message', (message: unknown) => {
      const answer = readAnswer(message);
      if (answer !== undefined) this.#listener?.(answer);
    });
    child.on('error', (error) => this.#ended(`the pack host could not be run: ${error.message}`));
    child.on('exit', (code, signal) => this.#ended(`the pack host ended (${signal ?? `exit code ${code}`})`));
    // An exit without `finally` blocks (a second Ctrl-C, process.exit) still stops it.
    process.on('exit', this.#killAtExit);
  }

  /** The text without any secret known to the host or to the runs that asked it something. */
  scrub(text: string): string {
    let scrubbed = this.#scrubber.scrubServerText(text);
    for (const scrub of this.#runScrubs) scrubbed = scrub(scrubbed);
    return scrubbed;
  }

  async evaluate(request: HostEvaluation): Promise<HostAnswer> {
    this.#runScrubs.add(request.scrub);
    const id = ++this.#nextId;
    const reply = await this.request({ kind: 'evaluate', id, resources: request.resources, timeoutMs: request.timeoutMs }, request.signal);
    if (reply.kind === 'evaluated') return this.#violationsOf(reply, request.resources.length);
    if (reply.kind === 'gone') return { ok: false, failure: { why: reply.why === 'ended' ? 'unusable' : reply.why, detail: reply.detail } };
    if (reply.kind === 'failed') return { ok: false, failure: this.#failureOf(reply, request.resources.length) };
    return { ok: false, failure: { why: 'unusable', detail: 'the pack host answered with something else than the results of the checks' } };
  }

  /** Sends one request (after the ones before it) and waits for its answer, the deadline, an abort or the host's end. */
  request(request: HostRequest, signal: AbortSignal | undefined): Promise<Reply> {
    const turn = this.#queue.then(() => this.#send(request, signal));
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  #send(request: HostRequest, signal: AbortSignal | undefined): Promise<Reply> {
    if (this.#gone !== undefined) return Promise.resolve({ kind: 'gone', why: 'ended', detail: this.#gone });
    if (signal?.aborted === true) return Promise.resolve({ kind: 'gone', why: 'interrupted', detail: 'interrupted' });
    const id = request.kind === 'evaluate' ? request.id : null;
    return new Promise<Reply>((resolve) => {
      const finish = (reply: Reply): void => {
        clearTimeout(backstop);
        signal?.removeEventListener('abort', onAbort);
        this.#listener = undefined;
        resolve(reply);
      };
      // Ref'd: while a request waits, secretform stays alive until it has an answer or the deadline has passed.
      const backstop = setTimeout(() => {
        void this.close();
        finish({ kind: 'gone', why: 'timeout', detail: `no answer within ${formatDuration(request.timeoutMs + GRACE_MS)}` });
      }, request.timeoutMs + GRACE_MS);
      const onAbort = (): void => {
        void this.close();
        finish({ kind: 'gone', why: 'interrupted', detail: 'interrupted' });
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#listener = (reply) => {
        if (reply.kind === 'gone') return finish(reply);
        const answers = reply.kind === 'loaded' ? null : reply.id;
        if (answers === id && (reply.kind !== 'loaded' || request.kind === 'load')) finish(reply);
      };
      this.#child.send(request, (error) => {
        if (error) finish({ kind: 'gone', why: 'ended', detail: `the pack host could not be reached: ${error.message}` });
      });
    });
  }

  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    // Waited for with the child ref'd: an unref'd child's end would not keep this process alive, and a caller
    // that reports an error after closing would end with exit code 0 and nothing said.
    this.#child.ref();
    this.#child.kill('SIGKILL');
    await exited;
  }

  #ended(why: string): void {
    if (this.#gone !== undefined) return;
    this.#gone = why;
    process.off('exit', this.#killAtExit);
    this.#listener?.({ kind: 'gone', why: 'ended', detail: why });
  }

  #violationsOf(reply: Extract<HostAnswerMessage, { kind: 'evaluated' }>, resourceCount: number): HostAnswer {
    const violations = new Map<string, PolicyViolation[]>();
    for (const [resource, policy, found] of reply.checks) {
      if (resource >= resourceCount) continue;
      violations.set(hostedCheckKey(resource, policy), found.map(({ message, field }) => (field === undefined ? { message: this.scrub(message) } : { message: this.scrub(message), field: this.scrub(field) })));
    }
    return { ok: true, violations };
  }

  #failureOf(reply: Extract<HostAnswerMessage, { kind: 'failed' }>, resourceCount: number): HostFailure {
    const why = reply.why === 'load' ? 'unusable' : reply.why;
    return {
      why,
      detail: this.scrub(reply.detail),
      ...(reply.policy !== undefined ? { policy: reply.policy } : {}),
      ...(reply.resource !== undefined && reply.resource < resourceCount ? { resource: reply.resource } : {}),
    };
  }

  /** The host's console output, a line at a time, scrubbed (a pack that prints the environment prints nothing secret). */
  #forwardLines(stream: NodeJS.ReadableStream, output: PackHostOptions['output']): void {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) output.write(`${this.scrub(line)}\n`);
    });
    stream.on('end', () => {
      if (pending !== '') output.write(`${this.scrub(pending)}\n`);
      pending = '';
    });
  }
}
