/**
 * `secretform import ADDRESS ID`: adopts an existing object into state under an address of the desired state.
 * Adoption assumes the object holds what the code says: the secrets' desired values are fingerprinted as if they
 * had been applied, so an import never re-sends a root credential (a later plan reports them "unverifiable").
 */
import type { ServiceClient } from '../../client';
import { ImportIdError } from '../../resources/types';
import { getResourceType } from '../../resources/registry';
import type { DesiredResource } from '../setup/desired';
import type { EngineOptions } from '../setup/engine-options';
import { EngineError, fail, ok, type Result } from '../errors';
import { refresh } from '../refresh/refresh';
import { refreshRequestFor, type RefreshRequest } from '../refresh/refresh-request';
import { clientFor, lockRunState, prepareRun, runFingerprintKey, runService, type RunContext } from '../setup/run-context';
import { resolveSecrets } from '../setup/secret-resolution';
import { recordedGuardrails } from '../plan/lifecycle';
import type { FingerprintKey } from '../state/fingerprint';
import type { ResourceState } from '../state/state-file';
import { StateWriter } from '../state/state-writer';
import { ownValue } from '../../own-keys';

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
    if (error instanceof ImportIdError) return fail(new EngineError('import_invalid', error.message, { address }));
    throw error;
  }
  const importedId = resourceType.id(identity);
  if (importedId !== desired.id) {
    return fail(new EngineError('import_invalid', `import id ${id} names ${importedId}, but the code manages ${desired.id} at this address`, { address }));
  }
  return withImportRun(context.value, [desired], 'secretform import', async (run) => {
    const existing = ownValue(run.writer.state.resources, address);
    if (existing) {
      return fail(new EngineError('import_invalid', `${address} is already in state (as ${existing.id}); remove it with \`secretform state rm\` first`));
    }
    const live = await refresh(run.client, [adoptionReadFor(desired)], { parallelism: 1 });
    if (!live.ok) return live;
    const attributes = live.value.get(address)?.attributes;
    if (!attributes) return fail(new EngineError('import_invalid', `${desired.id} does not exist on the service; nothing to import`, { address }));
    const stored = (await run.adopt(desired, attributes)) ?? (await run.writer.finish());
    if (stored) return fail(stored);
    return ok({ address, id: desired.id, type: desired.type });
  });
}

/** What an import works with once the state is locked and the client made. */
interface ImportRun {
  client: ServiceClient;
  /** The locked state, written through this writer. */
  writer: StateWriter;
  /** Records `resource` as adopted with the live `attributes`; once stored, undefined, else why the write failed. */
  adopt: (resource: DesiredResource, attributes: Record<string, unknown>) => Promise<EngineError | undefined>;
}

/**
 * The setup both imports share, in the order that reports a mistake before any request: resolve the secrets of
 * `resources`, lock the state, make the client; then `work`, after which the client is closed and the lock released.
 */
async function withImportRun<T>(
  context: RunContext,
  resources: readonly DesiredResource[],
  command: string,
  work: (run: ImportRun) => Promise<Result<T>>,
): Promise<Result<T>> {
  const secrets = await resolveSecrets(resources, { cwd: context.cwd, env: context.env });
  if (!secrets.ok) return secrets;
  const locked = await lockRunState(context, command);
  if (!locked.ok) return locked;
  // A state applied to another service than this run's is refused before any request, as plan and apply do;
  // the import records the run's service in a state that records none yet.
  const identity = runService(context, locked.value.state);
  const client = identity.ok ? clientFor(context, secrets.value) : identity;
  try {
    if (!client.ok) return client;
    const service = client.value;
    const writer = new StateWriter(locked.value.backend, locked.value.state, command, identity.ok ? identity.value : undefined);
    // Read at the first adoption and never created: an import sends no write (without a key yet, fingerprints
    // are salted scrypt, which keep comparing once the first apply creates the key).
    let fingerprintKey: Promise<FingerprintKey> | undefined;
    const adopt = async (resource: DesiredResource, attributes: Record<string, unknown>) => {
      fingerprintKey ??= runFingerprintKey(context, service, 'read');
      const entry = await adoptedEntry(resource, attributes, secrets.value.get(resource.address) ?? {}, await fingerprintKey);
      return writer.set(resource.address, entry).then(() => undefined, (error: EngineError) => error);
    };
    return await work({ client: service, writer, adopt });
  } finally {
    if (client.ok) await client.value.close();
    await locked.value.release();
  }
}

/**
 * The read that shows whether the object the code manages at `resource.address` exists, and what it holds. Its
 * absence is the import's answer ("nothing to import", "not found"), so, as for an object state records, it is
 * believed only once the run knows it talks to the service: another server answers 404 to every path too.
 */
function adoptionReadFor(resource: DesiredResource): RefreshRequest {
  const request = refreshRequestFor(resource.address, getResourceType(resource.type), { desired: resource.spec, desiredId: resource.id, identity: 'desired' });
  return { ...request, absenceMeans: 'not found' };
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
    ...recordedGuardrails(desired.lifecycle),
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
  const { desired, parallelism } = context.value;
  return withImportRun(context.value, desired.resources, 'secretform import --all', async (run) => {
    const candidates = desired.resources.filter((resource) => !ownValue(run.writer.state.resources, resource.address));
    const live = await refresh(run.client, candidates.map(adoptionReadFor), { parallelism, onProgress: options.onProgress });
    if (!live.ok) return live;
    const result: ImportAllResult = { imported: [], notFound: [], alreadyManaged: desired.resources.length - candidates.length };
    for (const resource of [...candidates].sort((a, b) => (a.address < b.address ? -1 : 1))) {
      const summary = { address: resource.address, id: resource.id, type: resource.type };
      const attributes = live.value.get(resource.address)?.attributes;
      if (!attributes) {
        result.notFound.push(summary);
        continue;
      }
      const stored = await run.adopt(resource, attributes);
      if (stored) return fail(stored);
      result.imported.push(summary);
    }
    const finished = await run.writer.finish();
    if (finished) return fail(finished);
    return ok(result);
  });
}
