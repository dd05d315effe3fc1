// Which verify shard checks a record (`prereg verify --shard I/N`, docs/scaling.md): the SHA-256 of
// its identity, not its position, so that shares are balanced whatever the files' order and a
// record stays in its shard when other records are added.
import { createHash } from 'node:crypto';
import { PreregError } from '../reasons.ts';

/** Shard `index` of `count` (index from 0 to count − 1, as Kubernetes' JOB_COMPLETION_INDEX counts). */
export interface ShardSpec {
  index: number;
  count: number;
}

/** At most this many shards: more would hold a handful of records each. */
export const MAX_SHARDS = 4096;

/** `I/N` as --shard gives it; USAGE otherwise. */
export function parseShardSpec(text: string): ShardSpec {
  const m = /^(0|[1-9][0-9]{0,3})\/([1-9][0-9]{0,3})$/.exec(text);
  const index = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!m || index >= count || count > MAX_SHARDS)
    throw new PreregError('USAGE', `--shard ${JSON.stringify(text)}: expected I/N with 0 ≤ I < N ≤ ${MAX_SHARDS} (e.g. 0/3)`);
  return { index, count };
}

/** The shard of the record (system_id, item_id, attempt) among `count`: its canonical identity's SHA-256, first 48 bits, mod count. */
export function shardOf(key: { system_id: string; item_id: string; attempt: number }, count: number): number {
  const digest = createHash('sha256')
    .update(JSON.stringify([key.system_id, key.item_id, key.attempt]))
    .digest();
  return digest.readUIntBE(0, 6) % count;
}

/**
 * Whether a submission line may hold a record of `share`, before its checks: a shard checks only
 * those lines, so that N shards read every file but check each line about once. JSON.parse reads
 * the identity the canonical parser would of any line the checks accept; a line it cannot read as
 * one (not JSON, no such members) is kept, for the checks to reject — keeping too much costs time,
 * never a row, as verify checks only the records shardOf gives the share. A line left out wrongly
 * would show at the merge as an item in no shard (SHARD_MISSING), never as a silent gap.
 */
export function mayBeInShare(line: { bytes: Buffer }, share: ShardSpec): boolean {
  let value: unknown;
  try {
    value = JSON.parse(line.bytes.toString('utf8'));
  } catch {
    return true;
  }
  if (typeof value !== 'object' || value === null) return true;
  const { system_id, item_id, attempt } = value as Record<string, unknown>;
  if (typeof system_id !== 'string' || typeof item_id !== 'string' || !Number.isSafeInteger(attempt)) return true;
  return shardOf({ system_id, item_id, attempt: attempt as number }, share.count) === share.index;
}
