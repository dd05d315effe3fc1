// What a verify shard is made from and holds (docs/scaling.md): the frozen digests and input files
// a `verify --shard` read, its index among how many, and per table its Parquet file, row count and
// SHA-256. `run --verified-shards` compares each manifest with the study's own source
// (shard-merge.ts), so a shard of other inputs, another freeze or another prereg is refused.
import { hashFileStreamed, sha256OfFileIfAny } from '../io/file-hash.ts';
import { listCommitmentsFiles } from '../intake/files.ts';
import type { LoadedStudy } from '../study/loaded-study.ts';
import { duckdbVersion } from '../store/db.ts';
import { TOOL_VERSION } from '../version.ts';

/** The manifest's file in a shard's directory. */
export const SHARD_MANIFEST = 'shard.json';

/** The per-item tables a shard holds, each with the order its rows are written and loaded in (the order one machine appends them). */
export const SHARD_TABLES = {
  proof_checks: 'record_id, evidence_index',
  chain_checks: 'record_id',
  chain_entries: 'record_id, seq',
  timeline_tools: 'record_id',
} as const;
export type ShardTable = keyof typeof SHARD_TABLES;

/** What every shard of one study must have been made from. */
export interface ShardSource {
  freeze_digest: string;
  /** SHA-256 of inputs/seal.json, null before the seal. */
  seal_sha256: string | null;
  /** The submission files and the commitments files, study-relative, in the order they are read. */
  inputs: Array<{ file: string; sha256: string | null }>;
  tool_version: string;
  duckdb_version: string;
}

export interface ShardManifest extends ShardSource {
  format: 'prereg.verify-shard-manifest/1';
  shard: { index: number; count: number };
  tables: Record<ShardTable, { file: string; rows: number; sha256: string }>;
}

/** The study's source now: its freeze, seal, every submission (hashed by submissionHashes) and commitments file, the tool. */
export function shardSource(loaded: LoadedStudy, submissions: ReadonlyArray<{ file: string; sha256: string }>): ShardSource {
  const commitments = listCommitmentsFiles(loaded.layout).map((f) => ({ file: f.file, sha256: sha256OfFileIfAny(f.path) }));
  return {
    freeze_digest: loaded.freezeDigest(),
    seal_sha256: sha256OfFileIfAny(loaded.layout.seal),
    inputs: [...submissions.map((f) => ({ file: f.file, sha256: f.sha256 })), ...commitments],
    tool_version: TOOL_VERSION,
    duckdb_version: duckdbVersion(),
  };
}

/** A file's SHA-256 (the digest a manifest records of each Parquet file: any changed byte of its rows changes it). */
export async function fileSha256(path: string): Promise<string> {
  return (await hashFileStreamed(path)).sha256;
}
