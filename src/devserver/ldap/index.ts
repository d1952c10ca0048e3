import { unsupportedOperation, unsupportedPath } from '../respond';
import type { AreaFactory, AreaHandler, DevRequest, DevResponse } from '../types';
import { deleteConfig, readConfig, writeConfig } from './config';
import { rotateRoot } from './connection';
import { expireDynamicLeases, issueDynamicCredentials, revokeLease } from './dynamic-creds';
import { deleteDynamicRole, listDynamicRoles, readDynamicRole, writeDynamicRole } from './dynamic-roles';
import { checkIn, checkInExpired, checkOut } from './library-checkout';
import { deleteLibrarySet, listLibrarySets, readLibrarySet, readLibraryStatus, writeLibrarySet } from './library-sets';
import { listPrefix, normalizeName } from './names';
import { inspectLdapState } from './inspect';
import { emptyLdapState, type LdapEngine } from './state';
import {
  deleteStaticRole,
  listStaticRoles,
  readStaticCredential,
  readStaticRole,
  rotateDueStaticRoles,
  rotateRoleNow,
  writeStaticRole,
} from './static-roles';

/** The directory (LDAP) secrets engine mounted at one path. */
export const createLdapArea: AreaFactory = (mount, ctx) => {
  const engine: LdapEngine = { mount, ctx, state: emptyLdapState() };
  const handler: AreaHandler = {
    handle: (req, subpath) => route(engine, req, subpath),
    tick(now) {
      rotateDueStaticRoles(engine, now);
      expireDynamicLeases(engine, now);
      checkInExpired(engine, now);
    },
    unmount() {
      // Entries created for dynamic credentials belong to the mount: remove them with it.
      for (const lease of [...engine.state.leases.values()]) revokeLease(engine, lease);
    },
    allowsNonRoot: (method, subpath) => allowsNonRoot(method, subpath),
    inspect: () => inspectLdapState(engine.state),
  };
  return handler;
};

/** Login tokens may use credentials (dynamic creds, library check-out and check-in), not configure. */
function allowsNonRoot(method: string, subpath: string): boolean {
  if (method === 'GET' && subpath.startsWith('creds/')) return true;
  if (method !== 'POST' || !subpath.startsWith('library/') || subpath.startsWith('library/manage/')) return false;
  return subpath.endsWith('/check-out') || subpath.endsWith('/check-in');
}

type Handlers = Partial<Record<string, () => DevResponse>>;

function dispatch(req: DevRequest, handlers: Handlers): DevResponse {
  const handler = handlers[req.method] ?? (req.method === 'PUT' ? handlers.POST : undefined);
  if (!handler) throw unsupportedOperation();
  return handler();
}

function route(engine: LdapEngine, req: DevRequest, subpath: string): DevResponse {
  if (subpath === 'config') {
    return dispatch(req, {
      GET: () => readConfig(engine),
      POST: () => writeConfig(engine, req),
      DELETE: () => deleteConfig(engine),
    });
  }
  if (subpath === 'rotate-root') return dispatch(req, { POST: () => rotateRoot(engine) });

  const [collection, ...restParts] = subpath.split('/');
  const rest = restParts.join('/');
  switch (collection) {
    case 'static-role':
      return routeItem(req, rest, 'static role', {
        list: (prefix) => listStaticRoles(engine, prefix),
        // The document lists roles on a plain GET of the collection, like LIST.
        getCollection: (prefix) => listStaticRoles(engine, prefix),
        item: (name) => ({
          GET: () => readStaticRole(engine, name),
          POST: () => writeStaticRole(engine, name, req),
          DELETE: () => deleteStaticRole(engine, name),
        }),
      });
    case 'static-cred':
      return routeItem(req, rest, 'static role', { item: (name) => ({ GET: () => readStaticCredential(engine, name) }) });
    case 'rotate-role':
      return routeItem(req, rest, 'static role', { item: (name) => ({ POST: () => rotateRoleNow(engine, name) }) });
    case 'role':
      return routeItem(req, rest, 'role', {
        list: (prefix) => listDynamicRoles(engine, prefix),
        item: (name) => ({
          GET: () => readDynamicRole(engine, name),
          POST: () => writeDynamicRole(engine, name, req),
          DELETE: () => deleteDynamicRole(engine, name),
        }),
      });
    case 'creds':
      return routeItem(req, rest, 'role', { item: (name) => ({ GET: () => issueDynamicCredentials(engine, name, req) }) });
    case 'library':
      return routeLibrary(engine, req, rest);
    default:
      throw unsupportedPath();
  }
}

interface ItemRoutes {
  /** LIST on the collection or below a prefix. */
  list?: (prefix: string) => DevResponse;
  /** GET on the collection path itself. */
  getCollection?: (prefix: string) => DevResponse;
  item: (name: string) => Handlers;
}

function routeItem(req: DevRequest, rest: string, what: string, routes: ItemRoutes): DevResponse {
  if (req.method === 'LIST') {
    if (!routes.list) throw unsupportedOperation();
    return routes.list(listPrefix(rest));
  }
  if (rest === '') {
    if (req.method === 'GET' && routes.getCollection) return routes.getCollection('');
    if (routes.list) throw unsupportedOperation();
    throw unsupportedPath();
  }
  return dispatch(req, routes.item(normalizeName(rest, what)));
}

const SET_ACTIONS = ['status', 'check-out', 'check-in'] as const;

function routeLibrary(engine: LdapEngine, req: DevRequest, rest: string): DevResponse {
  if (req.method === 'LIST') return listLibrarySets(engine, listPrefix(rest));
  if (rest === '') throw unsupportedOperation();

  const manage = /^manage\/(.+)\/check-in$/.exec(rest);
  if (manage) {
    const name = normalizeName(manage[1], 'library set');
    return dispatch(req, { POST: () => checkIn(engine, name, req, true) });
  }
  const action = SET_ACTIONS.find((candidate) => rest.endsWith(`/${candidate}`));
  if (action) {
    const name = normalizeName(rest.slice(0, -(action.length + 1)), 'library set');
    if (action === 'status') return dispatch(req, { GET: () => readLibraryStatus(engine, name) });
    if (action === 'check-out') return dispatch(req, { POST: () => checkOut(engine, name, req) });
    return dispatch(req, { POST: () => checkIn(engine, name, req, false) });
  }
  const name = normalizeName(rest, 'library set');
  return dispatch(req, {
    GET: () => readLibrarySet(engine, name),
    POST: () => writeLibrarySet(engine, name, req),
    DELETE: () => deleteLibrarySet(engine, name),
  });
}
