/** Custom repository-host apps that authenticate repohost destinations. */
import type { Construct } from 'constructs';
import { syncGithubApp } from '../resources/sync-github-app';
import type { SyncGithubAppFields } from './generated/fields';
import { propsSchema } from './props-schema';
import { SecretformResource } from './resource';

export interface SyncGithubAppProps extends SyncGithubAppFields {}

const appSchema = propsSchema(syncGithubApp);

/** A custom repository-host app (`sys/sync/github-apps/<name>`). */
export class SyncGithubApp extends SecretformResource {
  readonly name: string;

  constructor(scope: Construct, id: string, props: SyncGithubAppProps) {
    super(scope, id, { resourceType: syncGithubApp, props, schema: appSchema });
    this.name = props?.name;
  }
}
