import { badRequest } from '../respond';

/** Role and set names are stored lower-cased; they may contain `/` forming a hierarchy. */
export function normalizeName(raw: string, what: string): string {
  const name = raw.toLowerCase();
  if (name === '' || name.split('/').some((part) => part === '')) {
    throw badRequest(`invalid ${what} name "${raw}": names must be non-empty and have no empty path segments`);
  }
  return name;
}

/**
 * The keys one level below `prefix` (which is '' or ends with `/`): a name directly at that level as is,
 * a deeper name as its next segment followed by `/`.
 */
export function hierarchicalKeys(names: Iterable<string>, prefix: string): string[] {
  const keys = new Set<string>();
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const rest = name.slice(prefix.length);
    const slash = rest.indexOf('/');
    keys.add(slash < 0 ? rest : rest.slice(0, slash + 1));
  }
  return [...keys].filter((key) => key !== '').sort();
}

/** The list prefix a LIST request asks for: '' for the collection, `team/` for `LIST <collection>/team[/]`. */
export function listPrefix(rest: string): string {
  const trimmed = rest.replace(/^\/+|\/+$/g, '').toLowerCase();
  return trimmed === '' ? '' : `${trimmed}/`;
}
