import { randomBytes } from 'node:crypto';
import {
  badRequest,
  listResponse,
  multiError,
  noContent,
  notFound,
  okEnvelope,
  unsupportedOperation,
  unsupportedPath,
} from '../respond';
import { DueSchedule } from '../due-schedule';
import type { AreaFactory, AreaHandler, DevRequest, DevResponse } from '../types';
import { applyConfigWrite, configReadData, type CloudConfig } from './config';
import { EmulatedCloudProvider, generateClientSecret } from './provider';
import { applyRoleWrite, roleReadData, type CloudRole } from './role';

/** Lease length of credentials when the role sets no ttl. */
export const DEFAULT_CREDS_TTL_SECONDS = 3600;

/**
 * After rotate-root the provider needs a moment before the new secret works everywhere; a second rotate-root
 * inside this window fails like it can on deployed servers (behaviour notes).
 */
export const ROTATION_PROPAGATION_MS = 5000;

/** Role names, as the plugin's path pattern accepts them: word characters, `-` and `.` inside. */
const ROLE_NAME = /^\w(?:[\w.-]*\w)?$/;

const isWrite = (method: string): boolean => method === 'POST' || method === 'PUT';

interface CredentialLease {
  leaseId: string;
  role: string;
  clientId: string;
  clientSecret: string;
  expiresAt: number;
  /** The application was created for this lease and goes away with it. */
  ownsApplication: boolean;
}

/** The emulated cloud credential engine, with the cloud provider it manages emulated inside. */
export const createCloudArea: AreaFactory = (mount, ctx) => {
  const provider = new EmulatedCloudProvider();
  let config: CloudConfig | undefined;
  const roles = new Map<string, CloudRole>();
  const leases = new Map<string, CredentialLease>();
  /** Lease ids by expiry, so that the tick before each request visits only the expired leases. */
  const expiries = new DueSchedule<string>();
  /** Applications kept for `persist_app` roles, by role name. */
  const persistedApps = new Map<string, string>();
  let rotations = 0;
  let lastRotationAt: number | undefined;

  const requireConfig = (): CloudConfig => {
    if (!config) throw multiError('config is nil');
    return config;
  };

  /** The engine logs in to the provider before every provider call; a rejected login is a 500. */
  function authenticateToProvider(current: CloudConfig): void {
    if (current.clientSecret !== '') {
      const failure = provider.authenticate(current.clientId, current.clientSecret, ctx.now());
      if (failure) throw multiError(`error authenticating to the cloud provider: ${failure}`);
      return;
    }
    // Workload identity federation: the emulated provider trusts the service's identity tokens.
    if (current.identityTokenAudience !== '') return;
    throw multiError('no client credentials configured: set client_secret or identity_token_audience');
  }

  function handleConfig(req: DevRequest): DevResponse {
    switch (req.method) {
      case 'GET':
        return okEnvelope(configReadData(config));
      case 'POST':
      case 'PUT':
        config = applyConfigWrite(config, req.body);
        if (config.clientId !== '' && config.clientSecret !== '') provider.trustRootSecret(config.clientId, config.clientSecret);
        return noContent();
      case 'DELETE':
        config = undefined;
        return noContent();
      default:
        throw unsupportedOperation();
    }
  }

  function rotateRoot(): DevResponse {
    const current = requireConfig();
    if (current.clientSecret === '' || current.clientId === '') {
      throw badRequest('rotate-root needs client credentials: the configuration has no client_id and client_secret');
    }
    const now = ctx.now();
    if (lastRotationAt !== undefined && now - lastRotationAt < ROTATION_PROPAGATION_MS) {
      throw multiError(
        `the root client secret rotated ${Math.floor((now - lastRotationAt) / 1000)}s ago is still propagating at ` +
          `the cloud provider; retry rotate-root in a few seconds`,
      );
    }
    authenticateToProvider(current);
    const secret = generateClientSecret();
    provider.replaceSecrets(current.clientId, secret, now + current.rootPasswordTtlSeconds * 1000);
    config = { ...current, clientSecret: secret };
    rotations += 1;
    lastRotationAt = now;
    return noContent();
  }

  function handleRole(req: DevRequest, name: string): DevResponse {
    switch (req.method) {
      case 'GET': {
        const role = roles.get(name);
        if (!role) throw notFound();
        return okEnvelope(roleReadData(role));
      }
      case 'POST':
      case 'PUT':
        roles.set(name, applyRoleWrite(roles.get(name), req.body, requireConfig, provider));
        return noContent();
      case 'DELETE': {
        roles.delete(name);
        const persisted = persistedApps.get(name);
        if (persisted !== undefined) provider.deleteApplication(persisted);
        persistedApps.delete(name);
        return noContent();
      }
      default:
        throw unsupportedOperation();
    }
  }

  function issueCredentials(req: DevRequest, name: string): DevResponse {
    if (req.method !== 'GET') throw unsupportedOperation();
    const role = roles.get(name);
    if (!role) throw badRequest(`role "${name}" does not exist`);
    authenticateToProvider(requireConfig());

    const now = ctx.now();
    let leaseSeconds = role.ttlSeconds || DEFAULT_CREDS_TTL_SECONDS;
    if (role.maxTtlSeconds > 0) leaseSeconds = Math.min(leaseSeconds, role.maxTtlSeconds);
    if (role.explicitMaxTtlSeconds > 0) leaseSeconds = Math.min(leaseSeconds, role.explicitMaxTtlSeconds);
    const expiresAt = now + leaseSeconds * 1000;

    // An existing application (application_object_id) or a persisted one gets a new secret; otherwise a
    // new application is created for this lease alone.
    let clientId: string;
    let ownsApplication = false;
    if (role.applicationObjectId !== '') {
      clientId = role.applicationClientId;
    } else if (role.persistApp) {
      clientId = persistedApps.get(name) ?? provider.createApplication().clientId;
      persistedApps.set(name, clientId);
    } else {
      clientId = provider.createApplication().clientId;
      ownsApplication = true;
    }
    const clientSecret = provider.addSecret(clientId, expiresAt);
    const leaseId = `${mount.path}/creds/${name}/${randomBytes(12).toString('base64url')}`;
    leases.set(leaseId, { leaseId, role: name, clientId, clientSecret, expiresAt, ownsApplication });
    expiries.set(leaseId, expiresAt);
    return okEnvelope(
      { client_id: clientId, client_secret: clientSecret },
      { leaseId, renewable: true, leaseDurationSeconds: leaseSeconds },
    );
  }

  const handler: AreaHandler = {
    handle(req, subpath) {
      const segments = subpath.split('/');
      const [section, rawName] = segments;
      if (segments.length === 1) {
        if (section === 'config') return handleConfig(req);
        if (section === 'rotate-root') {
          if (!isWrite(req.method)) throw unsupportedOperation();
          return rotateRoot();
        }
        if (section === 'roles') {
          if (req.method !== 'LIST') throw unsupportedOperation();
          return listResponse([...roles.keys()].sort());
        }
      }
      if (segments.length === 2 && ROLE_NAME.test(rawName)) {
        const name = rawName.toLowerCase();
        if (section === 'roles') return handleRole(req, name);
        if (section === 'creds') return issueCredentials(req, name);
      }
      throw unsupportedPath();
    },

    /** Expired credential leases are revoked: their secret, or their whole application, is deleted. */
    tick(now) {
      for (const leaseId of expiries.due(now)) {
        const lease = leases.get(leaseId)!;
        if (lease.ownsApplication) provider.deleteApplication(lease.clientId);
        else provider.removeSecret(lease.clientId, lease.clientSecret);
        leases.delete(leaseId);
        expiries.delete(leaseId);
      }
    },

    allowsNonRoot(method, subpath) {
      return method === 'GET' && subpath.startsWith('creds/');
    },

    inspect() {
      return {
        config: config ? { ...configReadData(config), client_secret: config.clientSecret } : undefined,
        providerValidSecret: config?.clientId ? provider.validSecretsOf(config.clientId)[0] : undefined,
        providerApplications: provider.applicationClientIds(),
        rotations,
        roles: Object.fromEntries([...roles].map(([name, role]) => [name, roleReadData(role)])),
        leases: [...leases.values()].map((lease) => ({
          lease_id: lease.leaseId,
          role: lease.role,
          client_id: lease.clientId,
          expires_at: lease.expiresAt,
          application_exists: provider.hasApplication(lease.clientId),
        })),
      };
    },
  };
  return handler;
};
