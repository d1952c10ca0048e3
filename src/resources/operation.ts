/** Operations several types offer alike. */
import { field } from './field';
import type { FieldSpec, OperationSpec } from './types';

/** The local setting that makes apply rotate the root credential right after the configuration is first written. */
export const ROTATE_ROOT_AFTER_CREATE = 'rotate_root_after_create';

export function rotateRootAfterCreateField(credential: string): FieldSpec {
  return field(ROTATE_ROOT_AFTER_CREATE, 'bool', `Rotate the ${credential} right after the configuration is first written (\`secretform action rotate-root\`), so the value in code stops working at once and only the service knows the new one.`, {
    local: true, defaultDoc: '`false`',
  });
}

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
    afterCreateSetting: ROTATE_ROOT_AFTER_CREATE,
  };
}
