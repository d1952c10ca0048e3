import { readFileSync } from 'node:fs';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { ServiceToken } from './token';

export const DEFAULT_SERVICE_ADDR = 'http://127.0.0.1:8200';

/** TLS material for the connection to the service, read from the PEM files the environment names. */
export interface TlsSettings {
  /** CA bundle (PEM) that replaces the system roots when verifying the server. */
  ca?: string;
  /** Client certificate and key (PEM), sent when the server asks for one. Both or neither. */
  cert?: string;
  key?: string;
  /** false only when SERVICE_SKIP_VERIFY asks for it. */
  rejectUnauthorized: boolean;
}

export interface ClientConfig {
  /** Scheme, host, port and optional path prefix, without a trailing slash (`/v1/` is added per request). */
  address: string;
  /** Absent when SERVICE_TOKEN is unset or empty; the server then answers 403. */
  token?: ServiceToken;
  tls: TlsSettings;
  /** Settings that are valid but probably not what the user meant (e.g. a CA file with an http address). */
  warnings: string[];
  /**
   * How the client's messages name each setting when the settings do not come from the environment (a stack's
   * ServiceConnection): keyed by the environment's name (`SERVICE_TOKEN` -> `PROD_SERVICE_TOKEN`). Unset: as is.
   */
  settingNames?: Readonly<Record<string, string>>;
}

export type ClientConfigErrorCode =
  | 'invalid_address'
  | 'invalid_skip_verify'
  | 'unreadable_file'
  | 'invalid_pem'
  | 'incomplete_client_certificate';

export interface ClientConfigError {
  code: ClientConfigErrorCode;
  /** The environment variable at fault. */
  variable: string;
  message: string;
}

export type ClientConfigResult = { ok: true; config: ClientConfig } | { ok: false; error: ClientConfigError };

type Env = Record<string, string | undefined>;

const fail = (code: ClientConfigErrorCode, variable: string, message: string): ClientConfigResult => ({
  ok: false,
  error: { code, variable, message },
});

/** An unset variable and an empty one mean the same: not configured. */
function valueOf(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The client settings before they are checked: from the environment, or from a stack's ServiceConnection. */
export interface ConnectionSettings {
  /** As given (checked here). */
  address: string;
  /** The token's value, when its variable is set and not empty. */
  token?: string;
  /** PEM file paths, as they are to be opened (absolute, or relative to the process's directory). */
  caCertFile?: string;
  clientCertFile?: string;
  clientKeyFile?: string;
  skipVerify: boolean;
}

/** How messages name each setting: the environment variable, or the construct and its prop. */
export interface SettingNames {
  address: string;
  caCertFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  /** The TLS settings together, for the warning that an http address ignores them. */
  tls: string;
}

const ENVIRONMENT_NAMES: SettingNames = {
  address: 'SERVICE_ADDR',
  caCertFile: 'SERVICE_CACERT',
  clientCertFile: 'SERVICE_CLIENT_CERT',
  clientKeyFile: 'SERVICE_CLIENT_KEY',
  tls: 'SERVICE_CACERT, SERVICE_CLIENT_*, SERVICE_SKIP_VERIFY',
};

/**
 * Reads the client settings from the environment (SERVICE_ADDR, SERVICE_TOKEN, SERVICE_CACERT,
 * SERVICE_CLIENT_CERT, SERVICE_CLIENT_KEY, SERVICE_SKIP_VERIFY). Never throws: a bad value comes back as an
 * error naming the variable (and the file, for the PEM variables). The token never appears in an error.
 */
export function loadClientConfig(env: Env = process.env): ClientConfigResult {
  const skipVerify = parseSkipVerify(env.SERVICE_SKIP_VERIFY);
  if (skipVerify === undefined) {
    // Checked after the address, as before: an address problem is the one to fix first.
    const address = parseServiceAddress(valueOf(env, 'SERVICE_ADDR') ?? DEFAULT_SERVICE_ADDR, 'SERVICE_ADDR');
    if (!address.ok) return fail('invalid_address', 'SERVICE_ADDR', address.message);
    return fail(
      'invalid_skip_verify',
      'SERVICE_SKIP_VERIFY',
      `SERVICE_SKIP_VERIFY has the value ${JSON.stringify(env.SERVICE_SKIP_VERIFY)}; allowed are "true" or "1" ` +
        `(turn TLS verification off) and "false", "0" or unset (verify). Leave it unset unless you are testing.`,
    );
  }
  return clientConfigFrom({
    address: valueOf(env, 'SERVICE_ADDR') ?? DEFAULT_SERVICE_ADDR,
    token: valueOf(env, 'SERVICE_TOKEN'),
    caCertFile: valueOf(env, 'SERVICE_CACERT'),
    clientCertFile: valueOf(env, 'SERVICE_CLIENT_CERT'),
    clientKeyFile: valueOf(env, 'SERVICE_CLIENT_KEY'),
    skipVerify,
  }, ENVIRONMENT_NAMES);
}

/**
 * Checks the settings and reads the PEM files they name, without any request. Never throws: a bad value comes
 * back as an error naming the setting as `names` says (and the file). The token never appears in an error.
 */
export function clientConfigFrom(settings: ConnectionSettings, names: SettingNames): ClientConfigResult {
  const address = parseServiceAddress(settings.address, names.address);
  if (!address.ok) return fail('invalid_address', names.address, address.message);
  const { skipVerify } = settings;

  const tls: TlsSettings = { rejectUnauthorized: !skipVerify };
  if (settings.caCertFile !== undefined) {
    const ca = readCertificates(names.caCertFile, settings.caCertFile);
    if (!ca.ok) return ca.result;
    tls.ca = ca.pem;
  }

  const certPath = settings.clientCertFile;
  const keyPath = settings.clientKeyFile;
  if ((certPath === undefined) !== (keyPath === undefined)) {
    const [given, missing] = certPath === undefined ? [names.clientKeyFile, names.clientCertFile] : [names.clientCertFile, names.clientKeyFile];
    return fail(
      'incomplete_client_certificate',
      missing,
      `${given} is set but ${missing} is not; a client certificate needs both the certificate and its key. ` +
        `Set ${missing} to the PEM file, or unset ${given}.`,
    );
  }
  if (certPath !== undefined && keyPath !== undefined) {
    const cert = readCertificates(names.clientCertFile, certPath);
    if (!cert.ok) return cert.result;
    const key = readPrivateKey(names.clientKeyFile, keyPath);
    if (!key.ok) return key.result;
    if (!new X509Certificate(cert.pem).checkPrivateKey(createPrivateKey(key.pem))) {
      return fail(
        'invalid_pem',
        names.clientKeyFile,
        `${names.clientKeyFile} (${keyPath}) is not the private key of the certificate in ${names.clientCertFile} (${certPath}).`,
      );
    }
    tls.cert = cert.pem;
    tls.key = key.pem;
  }

  const warnings: string[] = [];
  if (address.url.startsWith('http:') && (tls.ca !== undefined || tls.cert !== undefined || skipVerify)) {
    warnings.push(`${names.address} uses http, so the TLS settings (${names.tls}) have no effect.`);
  }

  const config: ClientConfig = { address: address.url, tls, warnings };
  if (settings.token !== undefined && settings.token.trim() !== '') config.token = new ServiceToken(settings.token.trim());
  return { ok: true, config };
}

/**
 * The address as an error message may quote it: whole when it cannot hold a credential, else not at all
 * (`user:password@host:8200` parses as the scheme `user:`, so "unsupported scheme" would otherwise show it).
 */
function quotable(raw: string): string {
  return /[@?#]/.test(raw) ? '(not shown: it contains "@", "?" or "#", which may carry a secret)' : JSON.stringify(raw);
}

/**
 * A service address as the client takes it (scheme, host, port, optional path prefix, no trailing slash), or
 * what is wrong with it; `label` names where it came from in the message (`SERVICE_ADDR`, a construct's prop).
 * A ServiceConnection's address is checked with the same rule at synth.
 */
export function parseServiceAddress(raw: string, label: string): { ok: true; url: string } | { ok: false; message: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: `${label} ${quotable(raw)} is not a URL; expected e.g. "https://secrets.example.com:8200".` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, message: `${label} ${quotable(raw)} uses the scheme ${quotable(url.protocol)}; only http: and https: are supported.` };
  }
  const address = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    // Not quoted whole: credentials or a query may hold a secret, and error messages must never show one.
    return {
      ok: false,
      message: `${label} must not carry credentials, a query or a fragment (not shown here); give scheme, host, port and an optional path prefix, e.g. ${JSON.stringify(address)}.`,
    };
  }
  return { ok: true, url: address };
}

/** undefined = invalid. Follows the brief: only "true"/"1" turn verification off. */
function parseSkipVerify(raw: string | undefined): boolean | undefined {
  const value = raw?.trim().toLowerCase() ?? '';
  if (value === 'true' || value === '1') return true;
  if (value === '' || value === 'false' || value === '0') return false;
  return undefined;
}

type PemRead = { ok: true; pem: string } | { ok: false; result: ClientConfigResult };

function readFile(variable: string, path: string): PemRead {
  try {
    return { ok: true, pem: readFileSync(path, 'utf8') };
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return { ok: false, result: fail('unreadable_file', variable, `${variable} names ${path}, which cannot be read (${reason}). Point ${variable} at a readable PEM file.`) };
  }
}

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** One or more PEM certificates; each must parse, so a truncated bundle fails here and not at connect time. */
function readCertificates(variable: string, path: string): PemRead {
  const file = readFile(variable, path);
  if (!file.ok) return file;
  const blocks = file.pem.match(CERTIFICATE_BLOCK) ?? [];
  const invalid = (detail: string): PemRead => ({
    ok: false,
    result: fail('invalid_pem', variable, `${variable} names ${path}, which ${detail}. Expected one or more "-----BEGIN CERTIFICATE-----" PEM blocks.`),
  });
  if (blocks.length === 0) return invalid('holds no PEM certificate');
  for (const [index, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch (error) {
      return invalid(`holds a certificate (number ${index + 1}) that does not parse: ${(error as Error).message}`);
    }
  }
  return file;
}

function readPrivateKey(variable: string, path: string): PemRead {
  const file = readFile(variable, path);
  if (!file.ok) return file;
  try {
    createPrivateKey(file.pem);
    return file;
  } catch (error) {
    return {
      ok: false,
      result: fail('invalid_pem', variable, `${variable} names ${path}, which is not an unencrypted PEM private key (${(error as Error).message}).`),
    };
  }
}
