/**
 * The nouns the resource model counts with, in both forms, so that a count reads right: `1 user goes with it`,
 * `2 users go with it`. The one place they are spelled: the types' `consequences` hooks take them from here, and
 * the reports' words count with `countOf`.
 */
export interface Noun {
  /** `user` */
  readonly one: string;
  /** `users` */
  readonly many: string;
}

/** What a delete can take with it on the service (the `what` of a Consequence is `many`, its `one` the singular). */
export const CONTENT_NOUNS = {
  secrets: { one: 'secret', many: 'secrets' },
  users: { one: 'user', many: 'users' },
  roles: { one: 'role', many: 'roles' },
  staticRoles: { one: 'static role', many: 'static roles' },
  dynamicRoles: { one: 'dynamic role', many: 'dynamic roles' },
  librarySets: { one: 'library set', many: 'library sets' },
  externalSecrets: { one: 'external secret', many: 'external secrets' },
  syncedSecrets: { one: 'synced secret', many: 'synced secrets' },
} as const satisfies Record<string, Noun>;

/** `1 user`, `2 users`, `0 users`. */
export function countOf(count: number, noun: Noun): string {
  return `${count} ${count === 1 ? noun.one : noun.many}`;
}
