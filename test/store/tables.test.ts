// Each table is declared once (pipeline/store/table-declarations.ts); the .sql files create them.
// Every .sql file of the stages is run here and what DuckDB made is compared with the declarations,
// name, column order, type and NOT NULL: a column added, renamed, moved or retyped on one side only fails.
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declarationDifferences, declaredColumns, TABLES, type DescribedTables } from '../../pipeline/store/table-declarations.ts';
import { BASE_TABLE_SQL, STATISTICS_TABLES_SQL } from '../../pipeline/store/table-files.ts';

let instance: DuckDBInstance;
let connection: DuckDBConnection;
let described: DescribedTables;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  await connection.run('SET VARIABLE require_receipts = true');
  for (const file of [...BASE_TABLE_SQL, STATISTICS_TABLES_SQL]) await connection.run(readFileSync(file, 'utf8'));
  const rows = (
    await connection.runAndReadAll(
      "SELECT table_name, column_name, data_type, is_nullable FROM duckdb_columns() WHERE schema_name = 'main' AND NOT internal AND database_name = current_database() ORDER BY table_oid, column_index",
    )
  ).getRowObjectsJS();
  const tables = new Map<string, Array<readonly [string, string]>>();
  for (const r of rows) {
    const list = tables.get(String(r.table_name)) ?? [];
    list.push([String(r.column_name), `${String(r.data_type)}${r.is_nullable ? '' : ' NOT NULL'}`]);
    tables.set(String(r.table_name), list);
  }
  described = tables;
});

afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

describe('the table declarations', () => {
  it('are the tables the .sql files make, every one, column by column', () => {
    expect(described.size).toBe(Object.keys(TABLES).length);
    expect(declarationDifferences(described)).toEqual([]);
  });

  it('fail on a column moved, retyped or missing, a table not declared and a table no file makes', () => {
    const { records, vocabulary: _vocabulary, ...rest } = TABLES;
    const { attempt, item_id, ...others } = records;
    const moved = { ...rest, records: { attempt, item_id, ...others, has_receipts: 'VARCHAR' }, phantom: { x: 'VARCHAR' } };
    expect(declarationDifferences(described, moved)).toEqual([
      'phantom is declared but no .sql file creates it',
      expect.stringMatching(
        /^records: the \.sql file makes \(record_id BIGINT NOT NULL, system_id VARCHAR NOT NULL, item_id VARCHAR NOT NULL, attempt INTEGER NOT NULL, .*has_receipts BOOLEAN NOT NULL, config_json JSON\), the declaration says \(attempt INTEGER NOT NULL, item_id VARCHAR NOT NULL, record_id .*has_receipts VARCHAR, config_json JSON\)$/,
      ),
      'vocabulary is created but not declared in pipeline/store/table-declarations.ts',
    ]);
  });

  it("give each verifier's check_* columns from its catalogue", () => {
    expect(declaredColumns('chain_checks').filter((c) => c.startsWith('check_'))).toEqual([
      'check_structure',
      'check_revision',
      'check_genesis',
      'check_seq',
      'check_job',
      'check_close',
      'check_links',
      'check_commitment_found',
      'check_commitment_wellformed',
      'check_commitment_count',
      'check_commitment_final_digest',
      'check_commitment_timely',
      'check_commitment_time_plausible',
      'check_commitment_consistent',
    ]);
    expect(
      declaredColumns('proof_checks').filter(
        (c) => c.startsWith('tlog_') && c !== 'tlog_log_id' && c !== 'tlog_log_index' && c !== 'tlog_integrated_time',
      ),
    ).toHaveLength(7);
  });
});
