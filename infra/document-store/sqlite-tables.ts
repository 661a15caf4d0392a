import { UnsupportedQueryError, quotedName } from './sql-paths.js';

/** Every collection is a table named with this prefix, so dropAll finds them and nothing else. */
export const TABLE_PREFIX = 'docs_';
const COLLECTION_NAME = /^[A-Za-z0-9_-]+$/;

/** The collection's table, unquoted. */
export function tableNameOf(name: string): string {
  if (!COLLECTION_NAME.test(name))
    throw new UnsupportedQueryError(`the collection name "${name}" is not letters, digits, _ and -.`);
  return `${TABLE_PREFIX}${name}`;
}

export function tableOf(name: string): string {
  return quotedName(tableNameOf(name));
}

/** The text table of a collection's table, in the text file (its owed rows: owedTableOf). */
export function textTableOf(table: string): string {
  return `${table}__text`;
}

/** The file of the read models' text indexes, beside theirs (`read-models.sqlite` → `read-models-text.sqlite`). */
export function textIndexFile(readModelsFile: string): string {
  return readModelsFile.endsWith('.sqlite')
    ? `${readModelsFile.slice(0, -'.sqlite'.length)}-text.sqlite`
    : `${readModelsFile}-text`;
}
