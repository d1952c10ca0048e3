import { randomUUID } from 'node:crypto';
import { badRequest, listResponse, multiError, noContent, notFound, okEnvelope, unsupportedOperation, unsupportedPath } from '../respond';
import type { AreaFactory, AreaHandler, DevRequest, DevResponse } from '../types';
import { optionalString, optionalStringList } from '../body-fields';
import { login } from './login';
import { applyPolicies, applyUserWrite, hashPassword, userReadData, type UserEntry } from './user';

/**
 * Usernames: alphanumerics, `_`, `-`, `.`; not starting with `-` or `.`, not ending with `.`. A name that
 * breaks the rule matches no route of the method, hence `404 unsupported path` like the service.
 */
const USERNAME = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?$/;

const isWrite = (method: string): boolean => method === 'POST' || method === 'PUT';

/** The emulated userpass auth method, mounted under `auth/<path>`. */
export const createUserpassArea: AreaFactory = (mount, ctx) => {
  const users = new Map<string, UserEntry>();
  /** One identity entity per username, kept when the user is deleted (the service keeps entities too). */
  const entityIds = new Map<string, string>();
  const entityIdFor = (username: string): string => {
    let id = entityIds.get(username);
    if (id === undefined) {
      id = randomUUID();
      entityIds.set(username, id);
    }
    return id;
  };

  const existingUser = (username: string): UserEntry => {
    const user = users.get(username);
    if (!user) throw multiError('username does not exist');
    return user;
  };

  async function handleUser(req: DevRequest, username: string): Promise<DevResponse> {
    switch (req.method) {
      case 'GET': {
        const user = users.get(username);
        if (!user) throw notFound();
        return okEnvelope(userReadData(user));
      }
      case 'POST':
      case 'PUT':
        users.set(username, await applyUserWrite(users.get(username), req.body));
        return noContent();
      case 'DELETE':
        users.delete(username);
        return noContent();
      default:
        throw unsupportedOperation();
    }
  }

  async function handlePasswordUpdate(req: DevRequest, username: string): Promise<DevResponse> {
    // The field's type first, then the user, as the service's request framework does.
    const password = optionalString(req.body, 'password');
    const user = existingUser(username);
    if (!password) throw badRequest('missing password');
    users.set(username, { ...user, passwordHash: await hashPassword(password) });
    return noContent();
  }

  function handlePoliciesUpdate(req: DevRequest, username: string): DevResponse {
    // The fields' types first, then the user, as the service's request framework does.
    optionalStringList(req.body, 'token_policies');
    optionalStringList(req.body, 'policies');
    const user = { ...existingUser(username) };
    applyPolicies(user, req.body);
    users.set(username, user);
    return noContent();
  }

  const handler: AreaHandler = {
    async handle(req, subpath) {
      const segments = subpath.split('/');
      const [section, rawName, action] = segments;
      if (section === 'users' && segments.length === 1) {
        if (req.method !== 'LIST') throw unsupportedOperation();
        return listResponse([...users.keys()].sort());
      }
      if ((section !== 'users' && section !== 'login') || segments.length > 3 || !rawName || !USERNAME.test(rawName)) {
        throw unsupportedPath();
      }
      const username = rawName.toLowerCase();
      if (section === 'login') {
        if (segments.length !== 2) throw unsupportedPath();
        if (!isWrite(req.method)) throw unsupportedOperation();
        return login(req, username, users.get(username), ctx.tokens, entityIdFor);
      }
      if (action === undefined) return handleUser(req, username);
      if (action !== 'password' && action !== 'policies') throw unsupportedPath();
      if (!isWrite(req.method)) throw unsupportedOperation();
      return action === 'password' ? handlePasswordUpdate(req, username) : handlePoliciesUpdate(req, username);
    },

    inspect() {
      return {
        mount: mount.path,
        users: Object.fromEntries(users),
        entityIds: Object.fromEntries(entityIds),
      };
    },
  };
  return handler;
};
