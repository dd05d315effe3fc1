// What bounds DuckDB's memory in the stages after verify (classify, score, emit): a memory limit
// beyond which DuckDB spills to a temporary directory beside the store, inside the study's work
// directory. Without a limit DuckDB keeps up to 80% of the machine's memory, so a stage's peak grew
// with the study (docs/performance.md, "Bounded memory: classify, score, emit").
import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteLiteral } from './sql-text.ts';

/** The memory limit of the instances classify, score and emit open on the store (base tables, statistics, results). */
export const STAGE_MEMORY_LIMIT = '256MB';

/**
 * The memory limit of the database emit writes a Parquet file with. Higher: DuckDB's Parquet
 * writer holds a whole row group (ROW_GROUP_SIZE, pinned for the bytes: 122,880 rows) in memory,
 * which it cannot spill, and proof_checks' 63 columns need ≈ 300–400 MB of it (256 MB failed at
 * 100,000 records); bounded by the row group, not by the study.
 */
export const PARQUET_MEMORY_LIMIT = '512MB';

/**
 * The memory limit of section 5's locked instance. Higher: the plan's own SQL is the operator's,
 * and DuckDB pins blocks of every hash join a query holds open (the example's `scores`, a UNION of
 * twelve joins, needs ≈ 300 MB at 30,000 records and ≈ 500 MB at 100,000) — a limit below what a
 * plan needs refuses an honest study (SECTION5_OUT_OF_MEMORY). With Node's own, under 2 GiB.
 */
export const SECTION5_MEMORY_LIMIT = '1536MB';

/** Where an instance working on the store at `storeFile` spills: DuckDB's own default name for it, beside the store in work/. */
export function spillDirectory(storeFile: string): string {
  return `${storeFile}.tmp`;
}

/** The configuration that bounds section 5's instance on `storeFile` (given when it is created: its configuration is then locked). */
export function section5MemoryConfig(storeFile: string): { memory_limit: string; temp_directory: string } {
  return { memory_limit: SECTION5_MEMORY_LIMIT, temp_directory: spillDirectory(storeFile) };
}

/** Bounds an open instance (the stage's store, emit's in-memory database) working on `storeFile`. */
export async function boundMemory(connection: DuckDBConnection, storeFile: string, limit: string = STAGE_MEMORY_LIMIT): Promise<void> {
  await connection.run(`SET memory_limit = ${quoteLiteral(limit)}`);
  await connection.run(`SET temp_directory = ${quoteLiteral(spillDirectory(storeFile))}`);
}
