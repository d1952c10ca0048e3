/** The five secret-sync destination types. */
import type { Construct } from 'constructs';
import { syncDestinationCloud1Sm } from '../resources/sync-destination-cloud1-sm';
import { syncDestinationCloud2Kv } from '../resources/sync-destination-cloud2-kv';
import { syncDestinationCloud3Sm } from '../resources/sync-destination-cloud3-sm';
import { syncDestinationRepohost } from '../resources/sync-destination-repohost';
import { syncDestinationWebhostProject } from '../resources/sync-destination-webhost-project';
import type { ResourceType } from '../resources/types';
import type {
  SyncCloud1SmDestinationFields, SyncCloud2KvDestinationFields, SyncCloud3SmDestinationFields, SyncRepohostDestinationFields,
  SyncWebhostProjectDestinationFields,
} from './generated/fields';
import { customProp, optionalProp, unknownProp } from './prop-declaration';
import { propsSchema } from './props-schema';
import { SecretformResource, type ResourceReference } from './resource';
import { SyncGithubApp } from './sync-github-app';
import type { PropIssue, PropsSchema } from './validation';

/** Props every destination takes. */
export interface SyncDestinationBaseProps extends Pick<SyncRepohostDestinationFields, 'name' | 'granularity' | 'secretNameTemplate'> {}

/** Props of the three cloud destination types. */
export interface SyncCloudDestinationProps extends SyncDestinationBaseProps, Pick<SyncCloud1SmDestinationFields, 'customTags'> {}

/** Non-cloud types list `customTags` only to answer it with a clear rule instead of "unknown prop". */
const notACloudType = { customTags: optionalProp(unknownProp) };

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
    schema: PropsSchema,
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

export interface SyncCloud1SmDestinationProps extends SyncCloud1SmDestinationFields {}

const cloud1Schema = propsSchema(syncDestinationCloud1Sm);

/** A cloud1 secrets-manager destination (`sys/sync/destinations/cloud1-sm/<name>`). */
export class SyncCloud1SmDestination extends SyncDestination {
  constructor(scope: Construct, id: string, props: SyncCloud1SmDestinationProps) {
    super(scope, id, syncDestinationCloud1Sm, props, cloud1Schema, (raw) =>
      (raw.accessKeyId === undefined) !== (raw.secretAccessKey === undefined)
        ? [{ prop: raw.accessKeyId === undefined ? 'accessKeyId' : 'secretAccessKey', value: undefined, allowed: 'accessKeyId and secretAccessKey go together (or both omitted for the credential provider chain)' }]
        : []);
  }
}

export interface SyncCloud2KvDestinationProps extends SyncCloud2KvDestinationFields {}

const cloud2Schema = propsSchema(syncDestinationCloud2Kv);

/** A cloud2 key-vault destination (`sys/sync/destinations/cloud2-kv/<name>`). */
export class SyncCloud2KvDestination extends SyncDestination {
  constructor(scope: Construct, id: string, props: SyncCloud2KvDestinationProps) {
    super(scope, id, syncDestinationCloud2Kv, props, cloud2Schema, () => []);
  }
}

export interface SyncCloud3SmDestinationProps extends SyncCloud3SmDestinationFields {}

const cloud3Schema = propsSchema(syncDestinationCloud3Sm);

/** A cloud3 secret-manager destination (`sys/sync/destinations/cloud3-sm/<name>`). */
export class SyncCloud3SmDestination extends SyncDestination {
  constructor(scope: Construct, id: string, props: SyncCloud3SmDestinationProps) {
    super(scope, id, syncDestinationCloud3Sm, props, cloud3Schema, () => []);
  }
}

export interface SyncRepohostDestinationProps extends SyncRepohostDestinationFields {
  /**
   * A custom app (a `SyncGithubApp` of this stack, or its name); needs `installationId`. Exactly one of
   * `accessToken` and `app`.
   * @default - none
   */
  readonly app?: SyncGithubApp | string;
}

const repohostSchema = propsSchema(syncDestinationRepohost, {
  ...notACloudType,
  app: optionalProp(customProp(
    (value) => (typeof value === 'string' ? /^[A-Za-z0-9_.@-]+$/.test(value) : value instanceof SyncGithubApp),
    'a SyncGithubApp construct, or the app name as a string',
  )),
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

export interface SyncWebhostProjectDestinationProps extends SyncWebhostProjectDestinationFields {}

const webhostSchema = propsSchema(syncDestinationWebhostProject, notACloudType);

/** A web-host project destination (`sys/sync/destinations/webhost-project/<name>`). */
export class SyncWebhostProjectDestination extends SyncDestination {
  constructor(scope: Construct, id: string, props: SyncWebhostProjectDestinationProps) {
    super(scope, id, syncDestinationWebhostProject, props, webhostSchema, noCustomTags('webhost-project'));
  }
}
