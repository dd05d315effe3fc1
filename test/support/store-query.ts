// Reads a study's DuckDB store in tests (read-only), rows as JSON-friendly objects.
import { join } from 'node:path';
import { openStore } from '../../pipeline/store/db.ts';

export async function queryStore(root: string, sql: string): Promise<Array<Record<string, unknown>>> {
  const store = await openStore(join(root, 'work/prereg.duckdb'), { readOnly: true });
  try {
    return (await store.connection.runAndReadAll(sql)).getRowObjectsJson() as Array<Record<string, unknown>>;
  } finally {
    store.close();
  }
}
