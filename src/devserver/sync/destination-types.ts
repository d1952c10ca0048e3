// The five destination types of secret sync: their connection fields, which are required, sensitive (read
// back as "*****") or immutable (identify the remote store), and their option defaults.
// Sources: service-api.md "Sync destination" and behaviour-notes.md "Secret sync".

export type Granularity = 'secret-path' | 'secret-key';
export const GRANULARITIES: readonly Granularity[] = ['secret-path', 'secret-key'];

export type FieldKind = 'string' | 'string-list';

export interface ConnectionField {
  name: string;
  kind: FieldKind;
  /** Must hold a non-empty value once the destination is written (create or merged update). */
  required?: boolean;
  /** Read back as `*****`; omitted from reads when never supplied. */
  sensitive?: boolean;
  /** Identifies the remote store: cannot change after creation. */
  immutable?: boolean;
  /** Value stored when the field was never supplied (non-sensitive fields show it on read). */
  defaultValue?: string | string[];
  /** For string-list fields: the only values allowed. */
  allowedValues?: readonly string[];
}

export interface DestinationType {
  id: string;
  fields: ConnectionField[];
  acceptsCustomTags: boolean;
  defaultGranularity: Granularity;
  /** Name template used when `secret_name_template` was never set; depends on the granularity. */
  defaultNameTemplate(granularity: Granularity): string;
}

export const DEPLOYMENT_ENVIRONMENTS = ['development', 'preview', 'production'] as const;

/** Templates of the slash-separated form `svc/kv_1234/my-secret` (plus `/<key>` per key). */
function slashTemplate(granularity: Granularity): string {
  const base = 'svc/{{ .MountAccessor }}/{{ .SecretPath }}';
  return granularity === 'secret-key' ? `${base}/{{ .SecretKey }}` : base;
}

const cloud1Sm: DestinationType = {
  id: 'cloud1-sm',
  fields: [
    { name: 'access_key_id', kind: 'string', sensitive: true },
    { name: 'secret_access_key', kind: 'string', sensitive: true },
    { name: 'role_arn', kind: 'string', defaultValue: '' },
    { name: 'external_id', kind: 'string', defaultValue: '' },
    { name: 'region', kind: 'string', immutable: true, defaultValue: '' },
  ],
  acceptsCustomTags: true,
  defaultGranularity: 'secret-path',
  defaultNameTemplate: slashTemplate,
};

const cloud2Kv: DestinationType = {
  id: 'cloud2-kv',
  fields: [
    { name: 'key_vault_uri', kind: 'string', required: true, immutable: true },
    { name: 'client_id', kind: 'string', required: true },
    { name: 'client_secret', kind: 'string', required: true, sensitive: true },
    { name: 'tenant_id', kind: 'string', required: true, immutable: true },
    { name: 'cloud', kind: 'string', immutable: true, defaultValue: 'cloud' },
  ],
  acceptsCustomTags: true,
  defaultGranularity: 'secret-path',
  // Key-vault names allow only letters, digits and dashes: `svc-kv-1234-my-secret`.
  defaultNameTemplate(granularity) {
    const base =
      'svc-{{ .MountAccessor | replace "_" "-" }}-{{ .SecretPath | replace "/" "-" | replace "_" "-" | lowercase }}';
    return granularity === 'secret-key' ? `${base}-{{ .SecretKey | replace "_" "-" | lowercase }}` : base;
  },
};

const cloud3Sm: DestinationType = {
  id: 'cloud3-sm',
  fields: [
    { name: 'credentials', kind: 'string', required: true, sensitive: true },
    { name: 'project_id', kind: 'string', defaultValue: '' },
  ],
  acceptsCustomTags: true,
  defaultGranularity: 'secret-path',
  defaultNameTemplate: slashTemplate,
};

const repohost: DestinationType = {
  id: 'repohost',
  fields: [
    { name: 'access_token', kind: 'string', sensitive: true },
    { name: 'app_name', kind: 'string', defaultValue: '' },
    { name: 'installation_id', kind: 'string', defaultValue: '' },
    { name: 'repository_owner', kind: 'string', required: true, immutable: true },
    { name: 'repository_name', kind: 'string', required: true, immutable: true },
  ],
  acceptsCustomTags: false,
  defaultGranularity: 'secret-key',
  // Action secret names are upper-case with underscores: `SVC_KV_1234_MY_SECRET`.
  defaultNameTemplate(granularity) {
    const base =
      'SVC_{{ .MountAccessor | uppercase }}_{{ .SecretPath | replace "/" "_" | replace "-" "_" | uppercase }}';
    return granularity === 'secret-key' ? `${base}_{{ .SecretKey | replace "-" "_" | uppercase }}` : base;
  },
};

const webhostProject: DestinationType = {
  id: 'webhost-project',
  fields: [
    { name: 'access_token', kind: 'string', required: true, sensitive: true },
    { name: 'project_id', kind: 'string', required: true, immutable: true },
    { name: 'team_id', kind: 'string', defaultValue: '' },
    { name: 'deployment_environments', kind: 'string-list', required: true, allowedValues: DEPLOYMENT_ENVIRONMENTS },
  ],
  acceptsCustomTags: false,
  defaultGranularity: 'secret-key',
  defaultNameTemplate: slashTemplate,
};

export const DESTINATION_TYPES: ReadonlyMap<string, DestinationType> = new Map(
  [cloud1Sm, cloud2Kv, cloud3Sm, repohost, webhostProject].map((t) => [t.id, t]),
);

export const DESTINATION_TYPE_IDS: readonly string[] = [...DESTINATION_TYPES.keys()];
