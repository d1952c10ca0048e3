/**
 * `ServiceConnection`: which service a stack's resources live on, as a cdktf provider block says it for a
 * provider. At most one per stack. Synthesized as names and paths only (`"//".secretform.connection` at the top
 * of the stack's `cdk.tf.json`, format in synthesized-spec.ts): the token is read from the variable `tokenEnv`
 * names when secretform plans or applies, never at synth. A stack without one uses the `SERVICE_*` environment.
 */
import { Construct } from 'constructs';
import type { IConstruct } from 'constructs';
import { parseServiceAddress } from '../client/config';
import { CONNECTION_OVERRIDE_PATH, writeConnectionMarker, writeSynthesizedConnection, type SynthesizedConnection } from '../synthesized-spec';
import { addStackOverride, addValidation, containsToken, onStackSynth, stackOf } from './cdktf-adapter';
import { formatIssue, type PropIssue } from './validation';

/** The variable that holds the token when a connection names none (and for stacks without a connection). */
export const DEFAULT_TOKEN_ENV = 'SERVICE_TOKEN';

export interface ServiceConnectionProps {
  /**
   * The service's URL, as `SERVICE_ADDR` takes it: `http` or `https`, host, port and an optional path prefix;
   * no credentials, query or fragment. A stack with a connection always talks to this address (`SERVICE_ADDR`
   * applies only to stacks without one).
   */
  readonly address: string;
  /**
   * The name of the environment variable that holds the service token (never the token itself). Read when
   * secretform plans or applies; only the name is synthesized. Not a `SECRETFORM_*` variable (those are
   * secretform's own settings).
   * @default 'SERVICE_TOKEN'
   */
  readonly tokenEnv?: string;
  /**
   * PEM file of the CA certificates that verify the server (replaces the system roots), as `SERVICE_CACERT`. A
   * relative path is relative to the project directory (where `cdktf.json` is, and where secretform runs).
   * @default the system's root certificates
   */
  readonly caCertFile?: string;
  /**
   * PEM files of the client certificate and its key, for a server that asks for one; both or neither. Relative
   * paths as for `caCertFile`.
   * @default no client certificate
   */
  readonly clientCertFile?: string;
  /** @default no client certificate */
  readonly clientKeyFile?: string;
  /**
   * Turn TLS verification of the server off. For tests only.
   * @default false
   */
  readonly skipVerify?: boolean;
}

const KNOWN_PROPS = new Set(['address', 'tokenEnv', 'caCertFile', 'clientCertFile', 'clientKeyFile', 'skipVerify']);
const FILE_PROPS = ['caCertFile', 'clientCertFile', 'clientKeyFile'] as const;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** secretform's own settings: the state key, the state location, the synth list. A token there would be passed around as one of them. */
const RESERVED_PREFIX = 'SECRETFORM_';

const CONNECTION_MARKER = Symbol.for('secretform/ServiceConnection');
const connectionsByStack = new WeakMap<IConstruct, ServiceConnection[]>();

export class ServiceConnection extends Construct {
  /** Whether `x` is a ServiceConnection (of any copy of secretform: the check does not use `instanceof`). */
  static isServiceConnection(x: unknown): x is ServiceConnection {
    return typeof x === 'object' && x !== null && CONNECTION_MARKER in x;
  }

  /** The stack's connection, when it has one (the first, when validation will refuse a second). */
  static of(stack: IConstruct): ServiceConnection | undefined {
    return connectionsInTree(stack)[0];
  }

  /** The settings as they will be synthesized (names and paths only); read with `synthesized()`. */
  private readonly settings: Omit<SynthesizedConnection, 'construct'>;
  private readonly issues: readonly PropIssue[];
  private readonly stack: IConstruct;

  constructor(scope: Construct, id: string, props: ServiceConnectionProps) {
    super(scope, id);
    Object.defineProperty(this, CONNECTION_MARKER, { value: true });
    const raw = (props ?? {}) as unknown as Record<string, unknown>;
    this.issues = connectionIssues(raw, this);
    const text = (prop: string) => (typeof raw[prop] === 'string' ? raw[prop] : undefined);
    this.settings = {
      address: normalisedAddress(text('address') ?? ''),
      tokenEnv: text('tokenEnv') ?? DEFAULT_TOKEN_ENV,
      ...Object.fromEntries(FILE_PROPS.flatMap((prop) => (text(prop) === undefined ? [] : [[prop, text(prop)]]))),
      skipVerify: raw.skipVerify === true,
    };
    this.stack = stackOf(this);
    let connections = connectionsByStack.get(this.stack);
    if (!connections) {
      connections = [];
      connectionsByStack.set(this.stack, connections);
      const stack = this.stack;
      onStackSynth(stack, () => writeConnection(stack));
    }
    connections.push(this);
    addValidation(this, () => this.problems());
  }

  /** Every problem of this connection (its props, another connection in its stack), naming its path. */
  problems(): string[] {
    const problems = this.issues.map((issue) => formatIssue(this.node.path, issue));
    const others = connectionsInTree(this.stack).filter((other) => other !== this);
    if (others.length > 0) {
      problems.push(
        `${this.node.path}: a second ServiceConnection in stack ${this.stack.node.id} (${others.map((other) => other.node.path).join(', ')} ` +
          `${others.length === 1 ? 'is' : 'are'} there too); at most one per stack: a stack's resources live on one service`,
      );
    }
    return problems;
  }

  /** What is synthesized: names and paths only. */
  synthesized(): SynthesizedConnection {
    return { construct: this.node.path, ...this.settings };
  }
}

/** The address as the client will use it (no trailing slash); as written when invalid (validation refuses it). */
function normalisedAddress(address: string): string {
  const parsed = parseServiceAddress(address, 'address');
  return parsed.ok ? parsed.url : address;
}

/** The stack's connections still in its tree, in construct order. */
function connectionsInTree(stack: IConstruct): ServiceConnection[] {
  const registered = connectionsByStack.get(stack) ?? [];
  if (registered.length === 0) return [];
  const inTree = new Set(stack.node.findAll());
  return registered.filter((connection) => inTree.has(connection));
}

/**
 * At synth: the connection, or, when validation is skipped (`new App({ skipValidation: true })`) and it is
 * invalid or not alone, a marker the engine refuses, so the stack never falls back to `SERVICE_ADDR` unnoticed.
 */
function writeConnection(stack: IConstruct): void {
  const connections = connectionsInTree(stack);
  if (connections.length === 0) return;
  const problems = connections.flatMap((connection) => connection.problems());
  const value = problems.length === 0
    ? writeSynthesizedConnection(connections[0].synthesized())
    : writeConnectionMarker(connections[0].node.path, problems);
  addStackOverride(stack, CONNECTION_OVERRIDE_PATH, value);
}

function connectionIssues(props: Record<string, unknown>, scope: IConstruct): PropIssue[] {
  const issues: PropIssue[] = [];
  for (const prop of Object.keys(props)) {
    if (!KNOWN_PROPS.has(prop)) issues.push({ prop, value: props[prop], allowed: `not a ServiceConnection prop; props are ${[...KNOWN_PROPS].join(', ')}` });
  }
  for (const [prop, value] of Object.entries(props)) {
    if (KNOWN_PROPS.has(prop) && containsToken(value, scope)) {
      issues.push({ prop, value, allowed: 'a plain value: cdktf tokens (terraform references, variables, functions) cannot be resolved by secretform, which reads the synthesized values as they are' });
    }
  }
  if (issues.length > 0) return issues;

  const { address, tokenEnv, skipVerify } = props;
  if (typeof address !== 'string' || address.trim() === '') {
    issues.push({ prop: 'address', value: address, allowed: 'the service\'s URL, e.g. "https://secrets.example.com:8200"' });
  } else {
    const parsed = parseServiceAddress(address, 'the address');
    // An address with credentials, a query or a fragment may hold a secret: never shown.
    if (!parsed.ok) issues.push({ prop: 'address', value: address, allowed: parsed.message, sensitive: /[@?#]/.test(address) });
  }
  if (tokenEnv !== undefined) {
    if (typeof tokenEnv !== 'string' || !VARIABLE_NAME.test(tokenEnv)) {
      issues.push({ prop: 'tokenEnv', value: tokenEnv, allowed: 'the name of an environment variable (letters, digits and _, not starting with a digit), e.g. "PROD_SERVICE_TOKEN"; never the token itself' });
    } else if (tokenEnv.toUpperCase().startsWith(RESERVED_PREFIX)) {
      issues.push({ prop: 'tokenEnv', value: tokenEnv, allowed: `a variable outside ${RESERVED_PREFIX}* (secretform's own settings), e.g. "PROD_SERVICE_TOKEN"` });
    }
  }
  for (const prop of FILE_PROPS) {
    const value = props[prop];
    if (value !== undefined && (typeof value !== 'string' || value.trim() === '' || [...value].some((char) => char.charCodeAt(0) < 0x20))) {
      issues.push({ prop, value, allowed: 'the path of a PEM file (relative to the project directory, or absolute)' });
    }
  }
  if ((props.clientCertFile === undefined) !== (props.clientKeyFile === undefined)) {
    const missing = props.clientCertFile === undefined ? 'clientCertFile' : 'clientKeyFile';
    issues.push({ prop: missing, value: undefined, allowed: 'clientCertFile and clientKeyFile together: a client certificate needs both the certificate and its key' });
  }
  if (skipVerify !== undefined && typeof skipVerify !== 'boolean') {
    issues.push({ prop: 'skipVerify', value: skipVerify, allowed: 'true or false' });
  }
  return issues;
}
