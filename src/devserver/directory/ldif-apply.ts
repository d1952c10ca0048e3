import type { Directory } from './directory';
import type { LdifRecord } from './ldif';

export interface ApplyLdifOptions {
  /** Creation LDIF stops at the first failing record; deletion and rollback LDIF carry on. */
  stopOnError: boolean;
}

export interface ApplyLdifResult {
  /** Records that succeeded. */
  applied: number;
  /** Each failing record's error as the directory raised it (a DirectoryError for directory failures). */
  errors: Error[];
}

/** Applies records in order through the Directory API (add, modify, delete). */
export function applyLdif(directory: Directory, records: LdifRecord[], options: ApplyLdifOptions): ApplyLdifResult {
  let applied = 0;
  const errors: Error[] = [];
  for (const record of records) {
    try {
      applyRecord(directory, record);
      applied++;
    } catch (error) {
      errors.push(error instanceof Error ? error : new Error(String(error)));
      if (options.stopOnError) break;
    }
  }
  return { applied, errors };
}

function applyRecord(directory: Directory, record: LdifRecord): void {
  switch (record.changetype) {
    case 'add':
      directory.add(record.dn, record.attributes);
      return;
    case 'modify':
      directory.modify(record.dn, record.changes);
      return;
    case 'delete':
      directory.delete(record.dn);
      return;
  }
}
