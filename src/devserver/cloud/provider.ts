import { createHash, randomBytes, randomUUID } from 'node:crypto';

/**
 * The cloud directory provider the engine talks to, emulated in memory: applications (client id, object id,
 * client secrets), built-in role definitions and groups. The engine calls it where the real plugin calls the
 * provider's API, so "referenced resources must exist" and "the old root secret stops working after
 * rotate-root" hold in the emulator too.
 */

/** Built-in role definitions the provider knows by name (the role write resolves names and ids against them). */
export const KNOWN_ROLE_DEFINITIONS = [
  'Owner',
  'Contributor',
  'Reader',
  'User Access Administrator',
  'Storage Blob Data Contributor',
  'Storage Blob Data Reader',
  'Key Vault Secrets User',
  'Key Vault Administrator',
] as const;

/** Groups that exist in the emulated directory. */
export const KNOWN_GROUPS = ['developers', 'operators', 'platform-admins', 'security-auditors'] as const;

/** A stable UUID-shaped id derived from a name, so ids look real and stay the same across server runs. */
export function uuidFromName(kind: string, name: string): string {
  const hex = createHash('sha256').update(`${kind}:${name}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export const roleDefinitionId = (subscriptionId: string, roleName: string): string =>
  `/subscriptions/${subscriptionId}/providers/Microsoft.Authorization/roleDefinitions/${uuidFromName('role', roleName)}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (text: string): boolean => UUID.test(text);

export interface RoleDefinition {
  roleName: string;
  roleId: string;
}

export interface Group {
  groupName: string;
  objectId: string;
}

export interface Application {
  objectId: string;
  clientId: string;
  /** Valid client secrets, each with its expiry (epoch ms; undefined = never). */
  secrets: Map<string, number | undefined>;
  /** true for applications the engine created for credentials (it deletes them again). */
  dynamic: boolean;
}

/** A secret in the shape the provider generates them: 40 characters from a URL-safe alphabet. */
export const generateClientSecret = (): string => randomBytes(30).toString('base64url');

export class EmulatedCloudProvider {
  /** Applications by client id. */
  private readonly applications = new Map<string, Application>();

  /**
   * The engine's configuration names a client id and secret. The provider cannot know an app's real secrets,
   * so the first secret written for a client id is taken as that app's valid secret; later writes of other
   * values (for example an old secret after rotate-root) do not make them valid.
   */
  trustRootSecret(clientId: string, secret: string): void {
    if (this.applications.has(clientId)) return;
    this.applications.set(clientId, {
      objectId: uuidFromName('application', clientId),
      clientId,
      secrets: new Map([[secret, undefined]]),
      dynamic: false,
    });
  }

  /** Whether the client credentials are accepted at `now`; on failure, the provider's reason. */
  authenticate(clientId: string, secret: string, now: number): string | undefined {
    const app = this.applications.get(clientId);
    if (!app) return `application with client id "${clientId}" was not found in the directory`;
    if (!app.secrets.has(secret)) return 'invalid client secret provided';
    const expiresAt = app.secrets.get(secret);
    if (expiresAt !== undefined && expiresAt <= now) return 'the client secret provided has expired';
    return undefined;
  }

  /** Rotation: `secret` becomes the only valid secret of the app. */
  replaceSecrets(clientId: string, secret: string, expiresAt: number | undefined): void {
    const app = this.applications.get(clientId);
    if (!app) throw new Error(`cloud provider: no application with client id "${clientId}"`);
    app.secrets = new Map([[secret, expiresAt]]);
  }

  validSecretsOf(clientId: string): string[] {
    return [...(this.applications.get(clientId)?.secrets.keys() ?? [])];
  }

  /**
   * An existing application, by object id. Any UUID names an existing app in the emulated directory (there is
   * no endpoint to create one); its client id is derived from the object id, so it is the same on every call.
   */
  existingApplication(objectId: string): Application | undefined {
    if (!isUuid(objectId)) return undefined;
    const clientId = uuidFromName('client', objectId.toLowerCase());
    let app = this.applications.get(clientId);
    if (!app) {
      app = { objectId: objectId.toLowerCase(), clientId, secrets: new Map(), dynamic: false };
      this.applications.set(clientId, app);
    }
    return app;
  }

  createApplication(): Application {
    const app: Application = { objectId: randomUUID(), clientId: randomUUID(), secrets: new Map(), dynamic: true };
    this.applications.set(app.clientId, app);
    return app;
  }

  addSecret(clientId: string, expiresAt: number | undefined): string {
    const app = this.applications.get(clientId);
    if (!app) throw new Error(`cloud provider: no application with client id "${clientId}"`);
    const secret = generateClientSecret();
    app.secrets.set(secret, expiresAt);
    return secret;
  }

  removeSecret(clientId: string, secret: string): void {
    this.applications.get(clientId)?.secrets.delete(secret);
  }

  deleteApplication(clientId: string): void {
    this.applications.delete(clientId);
  }

  hasApplication(clientId: string): boolean {
    return this.applications.has(clientId);
  }

  applicationClientIds(): string[] {
    return [...this.applications.keys()];
  }

  /** Role definition by display name (case-insensitive, like the provider's filter); canonical name returned. */
  roleDefinitionByName(subscriptionId: string, roleName: string): RoleDefinition | undefined {
    const known = KNOWN_ROLE_DEFINITIONS.find((name) => name.toLowerCase() === roleName.trim().toLowerCase());
    return known === undefined ? undefined : { roleName: known, roleId: roleDefinitionId(subscriptionId, known) };
  }

  /** Role definition by full id (`.../providers/Microsoft.Authorization/roleDefinitions/<uuid>`); id kept as given. */
  roleDefinitionById(roleId: string): RoleDefinition | undefined {
    const match = /\/providers\/Microsoft\.Authorization\/roleDefinitions\/([0-9a-f-]{36})$/i.exec(roleId.trim());
    if (!match) return undefined;
    const known = KNOWN_ROLE_DEFINITIONS.find((name) => uuidFromName('role', name) === match[1].toLowerCase());
    return known === undefined ? undefined : { roleName: known, roleId: roleId.trim() };
  }

  groupByName(groupName: string): Group | undefined {
    const known = KNOWN_GROUPS.find((name) => name === groupName.trim().toLowerCase());
    return known === undefined ? undefined : { groupName: known, objectId: uuidFromName('group', known) };
  }

  groupByObjectId(objectId: string): Group | undefined {
    const known = KNOWN_GROUPS.find((name) => uuidFromName('group', name) === objectId.trim().toLowerCase());
    return known === undefined ? undefined : { groupName: known, objectId: objectId.trim().toLowerCase() };
  }
}
