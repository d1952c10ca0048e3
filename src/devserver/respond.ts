import { randomUUID } from 'node:crypto';
import type { DevResponse } from './types';
import { ServiceError } from './service-error';

// Handlers take the error they throw from here with the responses they build; it has its own file so that the
// directory (which raises it, and which types.ts names in ServerContext) does not import the responses' types.
export { ServiceError } from './service-error';

export const notFound = (): ServiceError => new ServiceError(404, []);
export const unsupportedPath = (): ServiceError => new ServiceError(404, ['unsupported path']);
export const unsupportedOperation = (): ServiceError => new ServiceError(405, ['unsupported operation']);
export const badRequest = (message: string): ServiceError => new ServiceError(400, [message]);
export const permissionDenied = (): ServiceError => new ServiceError(403, ['permission denied']);

/** The plain-error style several engines use: status 500 with a multierror text. */
export const multiError = (message: string): ServiceError =>
  new ServiceError(500, [`1 error occurred:\n\t* ${message}\n\n`]);

export interface EnvelopeExtras {
  leaseId?: string;
  renewable?: boolean;
  leaseDurationSeconds?: number;
  warnings?: string[] | null;
  auth?: unknown;
  mountType?: string;
}

/** The standard response envelope. */
export function envelope(data: unknown, extras: EnvelopeExtras = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    request_id: randomUUID(),
    lease_id: extras.leaseId ?? '',
    renewable: extras.renewable ?? false,
    lease_duration: extras.leaseDurationSeconds ?? 0,
    data,
    wrap_info: null,
    warnings: extras.warnings ?? null,
    auth: extras.auth ?? null,
  };
  if (extras.mountType !== undefined) body.mount_type = extras.mountType;
  return body;
}

export const ok = (body: unknown): DevResponse => ({ status: 200, body });
export const okEnvelope = (data: unknown, extras?: EnvelopeExtras): DevResponse => ok(envelope(data, extras));
export const noContent = (): DevResponse => ({ status: 204 });
/** A list response in the envelope (`data.keys`); an empty list is a 404 with no errors. */
export function listResponse(keys: string[], extraData: Record<string, unknown> = {}): DevResponse {
  if (keys.length === 0) throw notFound();
  return okEnvelope({ keys, ...extraData });
}
/** A list response as a bare JSON array (directory engine static roles and library sets). */
export function bareListResponse(keys: string[]): DevResponse {
  if (keys.length === 0) throw notFound();
  return ok(keys);
}
