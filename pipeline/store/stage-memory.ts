// What bounds DuckDB's memory in the instances a stage opens besides its store (whose limit is
// openStore's, store/db.ts): section 5's locked instance and emit's databases, each with a memory
// limit beyond which DuckDB spills to a directory of its own under work/duckdb-tmp/
// (spillDirectory). Without a limit DuckDB keeps up to 80% of the machine's memory, so a stage's
// peak grew with the study (docs/performance.md, "Bounded memory: classify, score, emit").
import type { DuckDBConnection } from '@duckdb/node-api';
import { memoryLimitOf } from './db.ts';
import { quoteLiteral } from './sql-text.ts';

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
export const SECTION5_MEMORY_LIMIT_ENV = 'PREREG_SECTION5_MEMORY_LIMIT';

/**
 * Section 5's limit: $PREREG_SECTION5_MEMORY_LIMIT when set, else SECTION5_MEMORY_LIMIT. The
 * operator's to raise for a plan that needs more (SECTION5_OUT_OF_MEMORY): what section 5 computes
 * does not depend on it, only whether the machine can hold its joins.
 */
export function section5MemoryLimit(env: NodeJS.ProcessEnv = process.env): string {
  return memoryLimitOf(env, SECTION5_MEMORY_LIMIT_ENV, SECTION5_MEMORY_LIMIT);
}

/** Bounds an open instance (emit's in-memory database) to `limit`, spilling into `spill`. */
export async function boundMemory(connection: DuckDBConnection, spill: string, limit: string): Promise<void> {
  await connection.run(`SET memory_limit = ${quoteLiteral(limit)}`);
  await connection.run(`SET temp_directory = ${quoteLiteral(spill)}`);
}
