/**
 * Operations apply runs right after it created an object, when the code asks for them with the operation's local
 * setting (`rotateRootAfterCreate: true`: rotate-root as soon as the configuration is first written, so the
 * value in code stops working at once).
 */
import { ServiceClientError, type ServiceClient } from '../../client';
import type { ResourcePlan } from '../plan/resource-plan';
import { retryWhileSettling } from '../operations/eventual-consistency';

/** Whether the code asks for any of them for this resource. */
export function hasAfterCreateOperations(resource: ResourcePlan): boolean {
  return afterCreateOperationsOf(resource).length > 0;
}

function afterCreateOperationsOf(resource: ResourcePlan): ResourcePlan['resourceType']['operations'] {
  const spec = resource.desired?.spec ?? {};
  return resource.resourceType.operations.filter((operation) => operation.afterCreateSetting !== undefined && spec[operation.afterCreateSetting] === true);
}

/** Runs them; resolves to the names of the root credential fields now rotated (empty when none ran). */
export async function runAfterCreateOperations(client: ServiceClient, resource: ResourcePlan): Promise<string[]> {
  const rotated: string[] = [];
  for (const operation of afterCreateOperationsOf(resource)) {
    const call = operation.call(resource.canonical!, {});
    const send = () => client.request(call.method, call.path, { body: call.method === 'GET' ? undefined : call.body ?? {}, query: call.query });
    const result = operation.eventuallyConsistent ? await retryWhileSettling(send) : await send();
    if (!result.ok) {
      // A new error: the client answers every request after a run failure with that failure itself, whose report
      // must stay its own. Without the run-failure mark this resource's line is reported: what is left here (the
      // object is created and recorded, so no later plan shows it) is the operation.
      const { error } = result;
      throw new ServiceClientError(
        { code: error.code, method: error.method, path: error.path, status: error.status, errors: error.errors, attempts: error.attempts, cause: error.causeCode, location: error.location },
        `created, but ${operation.name} right after creation failed, so the value in code still works: ${error.message.replace(/\.$/, '')}. ` +
          `Run \`secretform action ${operation.name} ${resource.address}\` to finish it.`,
      );
    }
    if (operation.rotatesRootCredential) {
      rotated.push(...resource.resourceType.fields.filter((field) => field.rootCredential).map((field) => field.api));
    }
  }
  return rotated;
}
