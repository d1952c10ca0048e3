/**
 * The read of one object (its type's `api(identity).read`), made once per identity a run holds frozen.
 *
 * Why: a plan asks for each object's read twice, when its reads go out ahead of the state (../plan/read-ahead.ts)
 * and when the refresh takes their answers (refresh.ts), and `api` builds every call of the object (read, write,
 * delete, ...) each time: 35-70 ms and their garbage per 10,000 objects. The desired spec a run loads is frozen
 * (setup/desired.ts), so its calls cannot change; an identity that is not frozen (state's attributes, a spec given
 * in memory) is asked of the type every time, as before.
 */
import type { ApiCall, Attributes, ResourceType } from '../../resources/types';

const reads = new WeakMap<Attributes, { resourceType: ResourceType; call: ApiCall }>();

export function readCallOf(resourceType: ResourceType, identity: Attributes): ApiCall {
  if (!Object.isFrozen(identity)) return oneShape(resourceType.api(identity).read);
  const known = reads.get(identity);
  // The same spec read as another type (never in a run, but nothing forbids it) gets that type's call.
  if (known !== undefined && known.resourceType === resourceType) return known.call;
  const call = oneShape(resourceType.api(identity).read);
  reads.set(identity, { resourceType, call });
  return call;
}

/**
 * The call with every key of an ApiCall, in one order: the type modules write their calls as literals of several
 * shapes (with a query, without), and the read queue's code, which takes every read of the run, was compiled
 * again when a call of another shape reached it.
 */
function oneShape(call: ApiCall): ApiCall {
  const shaped: { readonly [K in keyof Required<ApiCall>]: ApiCall[K] } = {
    method: call.method,
    path: call.path,
    query: call.query,
    body: call.body,
    contentType: call.contentType,
  };
  return shaped;
}
