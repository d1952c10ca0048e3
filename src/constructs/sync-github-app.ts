/** Custom repository-host apps that authenticate repohost destinations. */
import type { Construct } from 'constructs';
import { z } from 'zod';
import { syncGithubApp } from '../resources/sync-github-app';
import type { SecretValue } from '../secret-value';
import { SecretformResource } from './resource';
import { secretSchema, segmentNameSchema } from './validation';

export interface SyncGithubAppProps {
  /** App name (referenced by repohost destinations). */
  readonly name: string;
  /** App id at the repository host (digits). */
  readonly appId: string;
  /** Private key of the app (PEM). */
  readonly privateKey: SecretValue;
}

const appSchema = z.strictObject({
  name: segmentNameSchema,
  appId: z.string().regex(/^\d+$/, { message: 'the app id: digits, as a string' }),
  privateKey: secretSchema,
});

/** A custom repository-host app (`sys/sync/github-apps/<name>`). */
export class SyncGithubApp extends SecretformResource {
  readonly name: string;

  constructor(scope: Construct, id: string, props: SyncGithubAppProps) {
    super(scope, id, { resourceType: syncGithubApp, props, schema: appSchema });
    this.name = props?.name;
  }
}
