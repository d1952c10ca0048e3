/** Operations several types offer alike. */
import type { OperationSpec } from './types';

/** `<path>/rotate-root`: the engine generates a new root credential that only the service knows. */
export function rotateRoot(engine: string, credential: string): OperationSpec {
  return {
    name: 'rotate-root',
    doc: `Makes the ${engine} generate a new ${credential} that only the service knows.`,
    call: (spec) => ({ method: 'POST', path: `${String(spec.path)}/rotate-root` }),
    returnsCredentials: false,
    options: [],
    eventuallyConsistent: true,
    rotatesRootCredential: true,
  };
}
