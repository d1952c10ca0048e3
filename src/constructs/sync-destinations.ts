/** The five secret-sync destination types. */
import type { Construct } from 'constructs';
import { z } from 'zod';
import { syncDestinationCloud1Sm } from '../resources/sync-destination-cloud1-sm';
import { syncDestinationCloud2Kv } from '../resources/sync-destination-cloud2-kv';
import { syncDestinationCloud3Sm } from '../resources/sync-destination-cloud3-sm';
import { syncDestinationRepohost } from '../resources/sync-destination-repohost';
import { DEPLOYMENT_ENVIRONMENTS, syncDestinationWebhostProject } from '../resources/sync-destination-webhost-project';
import { GRANULARITIES } from '../resources/sync-destination';
import { SECRET_NAME_TEMPLATE, templateProblems } from '../resources/template';
import type { ResourceType } from '../resources/types';
import type { SecretValue } from '../secret-value';
import { SecretformResource, type ResourceReference } from './resource';
import { SyncGithubApp } from './sync-github-app';
import { nonEmptyString, secretSchema, segmentNameSchema, stringMap, type PropIssue } from './validation';

/** Props every destination takes. */
export interface SyncDestinationBaseProps {
  /** Destination name. */
  readonly name: string;
  /**
   * Level of information synced as one resource at the destination: `secret-path` or `secret-key`.
   * @default - the type's default (`secret-path` for the cloud types, `secret-key` for repohost and webhost-project)
   */
  readonly granularity?: (typeof GRANULARITIES)[number];
  /**
   * Template for the names generated in the external system (fields such as `.MountAccessor`, `.SecretPath`).
   * @default - the type's default template
   */
  readonly secretNameTemplate?: string;
}

/** Props of the three cloud destination types. */
export interface SyncCloudDestinationProps extends SyncDestinationBaseProps {
  /**
   * Tags or labels set on synced secrets, merged with the built-in ones.
   * @default - none
   */
  readonly customTags?: Readonly<Record<string, string>>;
}

const templateSchema = z.string().superRefine((text, context) => {
  for (const problem of templateProblems(text, SECRET_NAME_TEMPLATE)) context.addIssue({ code: 'custom', message: `a template that parses: ${problem}` });
});

const baseShape = {
  name: segmentNameSchema,
  granularity: z.enum(GRANULARITIES).optional(),
  secretNameTemplate: templateSchema.optional(),
};
const cloudShape = { ...baseShape, customTags: stringMap.optional() };
/** Non-cloud types list `customTags` only to answer it with a clear rule instead of "unknown prop". */
const nonCloudShape = { ...baseShape, customTags: z.unknown().optional() };

function noCustomTags(destinationType: string) {
  return (props: Record<string, unknown>): PropIssue[] =>
    props.customTags === undefined
      ? []
      : [{ prop: 'customTags', value: props.customTags, allowed: `custom tags are accepted by cloud1-sm, cloud2-kv and cloud3-sm destinations only, not ${destinationType}` }];
}

/** A sync destination; associations take any of the five. */
export abstract class SyncDestination extends SecretformResource {
  /** The service's type identifier (`cloud1-sm`, ...). */
  readonly destinationType: string;
  readonly name: string;

  protected constructor(
    scope: Construct,
    id: string,
    resourceType: ResourceType & { readonly destinationType: string },
    props: SyncDestinationBaseProps,
    schema: z.ZodType,
    rules: (props: Record<string, unknown>) => PropIssue[],
    derived: Record<string, unknown> = {},
    references: ResourceReference[] = [],
    nonFieldProps: string[] = [],
  ) {
    super(scope, id, { resourceType, props, schema, rules, derived, references, nonFieldProps });
    this.destinationType = resourceType.destinationType;
    this.name = props?.name;
  }
}

export interface SyncCloud1SmDestinationProps extends SyncCloudDestinationProps {
  /**
   * Access key id; with `secretAccessKey`. Omitted: the credential provider chain of the server's environment.
   * @default - none
   */
  readonly accessKeyId?: SecretValue;
  /**
   * Secret access key; with `accessKeyId`.
   * @default - none
   */
  readonly secretAccessKey?: SecretValue;
  /**
   * Role to assume (temporary credentials).
   * @default - none
   */
  readonly roleArn?: string;
  /**
   * Value that must match the role's trust policy.
   * @default - none
   */
  readonly externalId?: string;
  /**
   * Region of the secrets manager; identifies the remote store, so changing it re-creates the destination.
   * @default - the server environment's region
   */
  readonly region?: string;
}

const cloud1Schema = z.strictObject({
  ...cloudShape,
  accessKeyId: secretSchema.optional(),
  secretAccessKey: secretSchema.optional(),
  roleArn: nonEmptyString.optional(),
  externalId: nonEmptyString.optional(),
  region: nonEmptyString.optional(),
});

/** A cloud1 secrets-manager destination (`sys/sync/destinations/cloud1-sm/<name>`). */
export class SyncCloud1SmDestination extends SyncDestination {
  constructor(scope: Construct, id: string, props: SyncCloud1SmDestinationProps) {
    super(scope, id, syncDestinationCloud1Sm, props, cloud1Schema, (raw) =>
      (raw.accessKeyId === undefined) !== (raw.secretAccessKey === undefined)
        ? [{ prop: raw.accessKeyId === undefined ? 'accessKeyId' : 'secretAccessKey', value: undefined, allowed: 'accessKeyId and secretAccessKey go together (or both omitted for the credential provider chain)' }]
        : []);
  }
}

export interface SyncCloud2KvDestinationProps extends SyncCloudDestinationProps {
  /** URI of an existing key vault, e.g. `https://my-vault.vault.example.net/`; identifies the remote store. */
  readonly keyVaultUri: string;
  /** Client id of the service principal. */
  readonly clientId: string;
  /** Client secret of the service principal. */
  readonly clientSecret: SecretValue;
  /** Tenant id; identifies the remote store. */
  readonly tenantId: string;
  /**
   * Cloud environment of the key vault; identifies the remote store.
   * @default "cloud" (the public cloud)
   */
  readonly cloud?: string;
}

const cloud2Schema = z.strictObject({
  ...cloudShape,
  keyVaultUri: z.string().regex(/^https:\/\/[^\s/]+(\/.*)?$/, { message: 'an https URI of the key vault' }),
  clientId: nonEmptyString,
  clientSecret: secretSchema,
  tenantId: nonEmptyString,
  cloud: nonEmptyString.optional(),
});

/** A cloud2 key-vault destination (`sys/sync/destinations/cloud2-kv/<name>`). */
export class SyncCloud2KvDestination extends SyncDestination {
  constructor(scope: Construct, id: string, props: SyncCloud2KvDestinationProps) {
    super(scope, id, syncDestinationCloud2Kv, props, cloud2Schema, () => []);
  }
}

export interface SyncCloud3SmDestinationProps extends SyncCloudDestinationProps {
  /** JSON credentials of the service account (file contents). */
  readonly credentials: SecretValue;
  /**
   * Project that overrides the one derived from the credentials.
   * @default - the credentials' project
   */
  readonly projectId?: string;
}

const cloud3Schema = z.strictObject({ ...cloudShape, credentials: secretSchema, projectId: nonEmptyString.optional() });

/** A cloud3 secret-manager destination (`sys/sync/destinations/cloud3-sm/<name>`). */
export class SyncCloud3SmDestination extends SyncDestination {
  constructor(scope: Construct, id: string, props: SyncCloud3SmDestinationProps) {
    super(scope, id, syncDestinationCloud3Sm, props, cloud3Schema, () => []);
  }
}

export interface SyncRepohostDestinationProps extends SyncDestinationBaseProps {
  /**
   * Fine-grained or personal access token; exactly one of `accessToken` and `app`.
   * @default - none
   */
  readonly accessToken?: SecretValue;
  /**
   * A custom app (a `SyncGithubApp` of this stack, or its name); needs `installationId`.
   * @default - none
   */
  readonly app?: SyncGithubApp | string;
  /**
   * Installation id of the app; required with `app`.
   * @default - none
   */
  readonly installationId?: string;
  /** Organization or user owning the repository; identifies the remote store. */
  readonly repositoryOwner: string;
  /** Repository name; identifies the remote store. */
  readonly repositoryName: string;
}

const repohostSchema = z.strictObject({
  ...nonCloudShape,
  accessToken: secretSchema.optional(),
  app: z.custom<SyncGithubApp | string>((value) => (typeof value === 'string' ? /^[A-Za-z0-9_.@-]+$/.test(value) : value instanceof SyncGithubApp), {
    message: 'a SyncGithubApp construct, or the app name as a string',
  }).optional(),
  installationId: z.string().regex(/^\d+$/, { message: 'the installation id: digits' }).optional(),
  repositoryOwner: nonEmptyString,
  repositoryName: nonEmptyString,
});

function repohostRules(props: Record<string, unknown>): PropIssue[] {
  const issues = [...noCustomTags('repohost')(props), ...accessTokenOrApp(props)];
  if (props.app !== undefined && props.installationId === undefined) {
    issues.push({ prop: 'installationId', value: undefined, allowed: 'required when app is set' });
  }
  if (props.app === undefined && props.installationId !== undefined) {
    issues.push({ prop: 'installationId', value: props.installationId, allowed: 'only with app (an app installation)' });
  }
  return issues;
}

function accessTokenOrApp(props: Record<string, unknown>): PropIssue[] {
  const hasToken = props.accessToken !== undefined;
  const hasApp = props.app !== undefined;
  if (hasToken !== hasApp) return [];
  return [{
    prop: 'accessToken | app',
    value: hasToken ? { accessToken: props.accessToken, app: props.app } : undefined,
    allowed: 'exactly one of accessToken and app (with installationId) is required',
  }];
}

/** A repository-host action-secrets destination (`sys/sync/destinations/repohost/<name>`). */
export class SyncRepohostDestination extends SyncDestination {
  constructor(scope: Construct, id: string, props: SyncRepohostDestinationProps) {
    const app = props?.app;
    const isConstruct = app instanceof SyncGithubApp;
    super(
      scope, id, syncDestinationRepohost, props, repohostSchema, repohostRules,
      { app_name: isConstruct ? app.name : app },
      isConstruct ? [{ prop: 'app', target: app }] : [],
      ['app'],
    );
  }
}

export interface SyncWebhostProjectDestinationProps extends SyncDestinationBaseProps {
  /** Token allowed to manage the project's environment variables. */
  readonly accessToken: SecretValue;
  /** Project id; identifies the remote store. */
  readonly projectId: string;
  /**
   * Team id.
   * @default - none
   */
  readonly teamId?: string;
  /** Environments to sync to: one or more of `development`, `preview`, `production`. */
  readonly deploymentEnvironments: readonly (typeof DEPLOYMENT_ENVIRONMENTS)[number][];
}

const webhostSchema = z.strictObject({
  ...nonCloudShape,
  accessToken: secretSchema,
  projectId: nonEmptyString,
  teamId: nonEmptyString.optional(),
  deploymentEnvironments: z
    .array(z.enum(DEPLOYMENT_ENVIRONMENTS))
    .min(1)
    .refine((list) => new Set(list).size === list.length, { message: 'each environment at most once' }),
});

/** A web-host project destination (`sys/sync/destinations/webhost-project/<name>`). */
export class SyncWebhostProjectDestination extends SyncDestination {
  constructor(scope: Construct, id: string, props: SyncWebhostProjectDestinationProps) {
    super(scope, id, syncDestinationWebhostProject, props, webhostSchema, noCustomTags('webhost-project'));
  }
}
