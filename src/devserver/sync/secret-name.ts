// Rendering and checking of `secret_name_template`, through the dev server's Go-template engine.
import { renderTemplate } from '../template';

export interface SecretNameData {
  MountAccessor: string;
  SecretPath: string;
  /** Only for granularity secret-key. */
  SecretKey?: string;
}

/**
 * Deployed servers render the template over a struct, so every field exists (`.SecretKey` is empty for
 * secret-path granularity) and a field that is not one of them is an error rather than `<no value>`.
 */
export function renderSecretName(template: string, data: SecretNameData): string {
  const values = { MountAccessor: data.MountAccessor, SecretPath: data.SecretPath, SecretKey: data.SecretKey ?? '' };
  return renderTemplate(template, values, { missingKey: 'error' });
}

/**
 * Throws the engine's TemplateError when the template does not parse, calls an unknown function or uses a
 * field that does not exist; checked by rendering sample values, as a write would otherwise succeed and every
 * later sync fail.
 */
export function checkSecretNameTemplate(template: string): void {
  renderSecretName(template, { MountAccessor: 'kv_1234abcd', SecretPath: 'my/secret', SecretKey: 'key' });
}
