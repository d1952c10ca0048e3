/**
 * `secretform import ADDRESS ID`: adopts an existing object into state under an address of the desired state.
 * Adoption assumes the object holds what the code says: the secrets' desired values are fingerprinted as if they
 * had been applied, so an import never re-sends a root credential (a later plan reports them "unverifiable").
 */
import { ImportIdError } from '../../resources/types';
import { getResourceType } from '../../resources/registry';
import type { DesiredResource } from '../setup/desired';
import type { EngineOptions } from '../setup/engine-options';
import { EngineError, fail, ok, type Result } from '../errors';
import { refresh, refreshRequestFor } from '../refresh/refresh';
import { clientFor, lockRunState, prepareRun, runFingerprintKey } from '../setup/run-context';
import { resolveSecrets } from '../setup/secret-resolution';
import type { FingerprintKey } from '../state/fingerprint';
import type { ResourceState } from '../state/state-file';
import { StateWriter } from './state-writer';

export interface ImportedResource {
  address: string;
  id: string;
  type: string;
}

export async function importResource(options: EngineOptions, address: string, id: string): Promise<Result<ImportedResource>> {
  const context = prepareRun(options);
  if (!context.ok) return context;
  const desired = context.value.desired.resources.find((resource) => resource.address === address);
  if (!desired) {
    const known = context.value.desired.resources.map((resource) => resource.address).sort();
    return fail(new EngineError('address_unknown', `${address} is not in the desired state of stack ${context.value.stack}, so its type is unknown; addresses: ${known.join(', ') || 'none'}`));
  }
  const resourceType = getResourceType(desired.type);
  let identity: Record<string, unknown>;
  try {
    identity = resourceType.parseImportId(id);
  } catch (error) {
    if (error instanceof ImportIdError) return fail(new EngineError('import_invalid', `${address}: ${error.message}`));
    throw error;
  }
  const importedId = resourceType.id(identity);
  if (importedId !== desired.id) {
    return fail(new EngineError('import_invalid', `${address}: import id ${id} names ${importedId}, but the code manages ${desired.id} at this address`));
  }
  const secrets = await resolveSecrets([desired], { cwd: context.value.cwd, env: context.value.env });
  if (!secrets.ok) return secrets;

  const locked = await lockRunState(context.value, 'secretform import');
  if (!locked.ok) return locked;
  const client = clientFor(context.value, secrets.value);
  try {
    if (!client.ok) return client;
    const state = locked.value.state;
    if (state.resources[address]) {
      return fail(new EngineError('import_invalid', `${address} is already in state (as ${state.resources[address].id}); remove it with \`secretform state rm\` first`));
    }
    const request = refreshRequestFor(address, resourceType, { desired: desired.spec, desiredId: desired.id, identity: 'desired' });
    const live = await refresh(client.value, [request], { parallelism: 1 });
    if (!live.ok) return live;
    const attributes = live.value.get(address)?.attributes;
    if (!attributes) return fail(new EngineError('import_invalid', `${address}: ${desired.id} does not exist on the service; nothing to import`));

    // Reading the key never creates it: an import sends no write (without a key yet, fingerprints are salted
    // scrypt, which keep comparing once the first apply creates the key).
    const fingerprintKey = await runFingerprintKey(context.value, client.value, 'read');
    const entry = await adoptedEntry(desired, attributes, secrets.value.get(address) ?? {}, fingerprintKey);
    const writer = new StateWriter(locked.value.backend, state, 'secretform import');
    const stored = await writer.set(address, entry).then(() => writer.finish(), (error: EngineError) => error);
    if (stored) return fail(stored);
    return ok({ address, id: desired.id, type: desired.type });
  } finally {
    if (client.ok) await client.value.close();
    await locked.value.release();
  }
}

/**
 * The state entry of an adopted object. The fields secretform owns are those the code sets (the rest stay the
 * server's, see the three-way diff); the code's secrets are fingerprinted as if they had been applied.
 */
async function adoptedEntry(
  desired: DesiredResource,
  attributes: Record<string, unknown>,
  secretValues: Readonly<Record<string, string>>,
  fingerprintKey: FingerprintKey,
): Promise<ResourceState> {
  const resourceType = getResourceType(desired.type);
  const canonical = resourceType.normaliseDesired(desired.spec);
  const owned: Record<string, unknown> = {};
  for (const name of Object.keys(canonical)) {
    if (attributes[name] !== undefined) owned[name] = attributes[name];
    else if (resourceType.fields.some((field) => field.api === name && (field.createOnly || field.writeOnly))) owned[name] = canonical[name];
  }
  const fingerprints: Record<string, string> = {};
  for (const [field, value] of Object.entries(secretValues)) fingerprints[field] = await fingerprintKey.fingerprint(value);
  return {
    type: desired.type,
    id: desired.id,
    attributes: owned,
    secrets: fingerprints,
    digest: desired.digest,
    dependencies: [...desired.dependsOn],
    applied_at: new Date().toISOString(),
  };
}

export interface ImportAllResult {
  /** Imported objects, by address. */
  imported: ImportedResource[];
  /** Resources of the code whose object the service does not have (apply would create them). */
  notFound: ImportedResource[];
  /** Resources already in state, left alone. */
  alreadyManaged: number;
}

/**
 * `secretform import --all`: adopts every resource of the code that is not in state and exists on the service.
 * It only reads (one read per resource, bounded parallelism) and writes the state once; nothing is sent to the
 * service but reads, so no root credential leaves.
 */
export async function importAll(options: EngineOptions): Promise<Result<ImportAllResult>> {
  const context = prepareRun(options);
  if (!context.ok) return context;
  const secrets = await resolveSecrets(context.value.desired.resources, { cwd: context.value.cwd, env: context.value.env });
  if (!secrets.ok) return secrets;
  const locked = await lockRunState(context.value, 'secretform import --all');
  if (!locked.ok) return locked;
  const client = clientFor(context.value, secrets.value);
  try {
    if (!client.ok) return client;
    const state = locked.value.state;
    const candidates = context.value.desired.resources.filter((resource) => !state.resources[resource.address]);
    const live = await refresh(
      client.value,
      candidates.map((resource) => refreshRequestFor(resource.address, getResourceType(resource.type), { desired: resource.spec, desiredId: resource.id, identity: 'desired' })),
      { parallelism: context.value.parallelism, onProgress: options.onProgress },
    );
    if (!live.ok) return live;
    const fingerprintKey = await runFingerprintKey(context.value, client.value, 'read');
    const result: ImportAllResult = { imported: [], notFound: [], alreadyManaged: context.value.desired.resources.length - candidates.length };
    const writer = new StateWriter(locked.value.backend, state, 'secretform import --all');
    for (const resource of [...candidates].sort((a, b) => (a.address < b.address ? -1 : 1))) {
      const summary = { address: resource.address, id: resource.id, type: resource.type };
      const attributes = live.value.get(resource.address)?.attributes;
      if (!attributes) {
        result.notFound.push(summary);
        continue;
      }
      const entry = await adoptedEntry(resource, attributes, secrets.value.get(resource.address) ?? {}, fingerprintKey);
      const stored = await writer.set(resource.address, entry).then(() => undefined, (error: EngineError) => error);
      if (stored) return fail(stored);
      result.imported.push(summary);
    }
    const finished = await writer.finish();
    if (finished) return fail(finished);
    return ok(result);
  } finally {
    if (client.ok) await client.value.close();
    await locked.value.release();
  }
}
