// One timeline entry (draft-zambo-aer1-09 §7.1): its members as read, its output commitment and
// its entry digest under the two constructions the draft has had.
import { canonicalJson, isRecord, member } from '../../formats/canonical-json.ts';
import { sha256Hex } from '../../formats/hash.ts';
import { describe, integerOf, isHex64, isNonEmptyString, isProvenanceClass, strictBase64 } from './fields.ts';

/** -07/-08/-09 ("current") digest the entry's metadata; -06 digested the bytes alone. */
export type Construction = 'current' | '06';

/** An entry's members as read; null where a member is missing or malformed. */
export interface EntryFields {
  id: string | null;
  seq: bigint | null;
  job_id: string | null;
  tool: string | null;
  provenance_class: string | null;
  /** SHA-256 (hex) of the decoded canonical_bytes, computed once when they decode: the entry's output commitment. */
  output_commitment: string | null;
  prev_digest: string | null;
  /** false when absent; null when present but not a boolean. */
  close: boolean | null;
}

/**
 * The members -06 does not write (it has only id, canonical_bytes, prev_digest and the last
 * entry's close): optional under -06, shape-checked when present.
 */
export const METADATA_MEMBERS = ['seq', 'job_id', 'tool', 'provenance_class'] as const;

/**
 * Reads entry `i`. Each malformed member is named in `problems`; other members are ignored (a
 * `commitment` or an `output_hash` an entry carries is never read: the commitment is external
 * and the output hash is always computed). Under -06 a METADATA_MEMBERS member may be absent
 * (null, and no problem).
 */
export function readEntry(raw: unknown, i: number, construction: Construction = 'current'): { fields: EntryFields; problems: string[] } {
  const fields: EntryFields = {
    id: null,
    seq: null,
    job_id: null,
    tool: null,
    provenance_class: null,
    output_commitment: null,
    prev_digest: null,
    close: null,
  };
  if (!isRecord(raw)) return { fields, problems: [`entries[${i}] must be an object, got ${describe(raw)}`] };
  const problems: string[] = [];
  const optional = (key: string) =>
    construction === '06' && (METADATA_MEMBERS as readonly string[]).includes(key) && member(raw, key) === undefined;
  const want = (key: string, shape: string) => {
    if (!optional(key)) problems.push(`entries[${i}].${key} must be ${shape}, got ${describe(member(raw, key))}`);
  };
  const id = member(raw, 'id'),
    job = member(raw, 'job_id'),
    tool = member(raw, 'tool'),
    pc = member(raw, 'provenance_class');
  const prev = member(raw, 'prev_digest'),
    close = member(raw, 'close');
  if (isNonEmptyString(id)) fields.id = id;
  else want('id', 'a non-empty string');
  fields.seq = integerOf(member(raw, 'seq'), true);
  if (fields.seq === null) want('seq', 'an integer');
  if (isNonEmptyString(job)) fields.job_id = job;
  else want('job_id', 'a non-empty string');
  if (isNonEmptyString(tool)) fields.tool = tool;
  else want('tool', 'a non-empty string');
  if (isProvenanceClass(pc)) fields.provenance_class = pc;
  else want('provenance_class', '"EXECUTED BY <NAME>", "OBSERVED VIA GATEWAY" or "LOGGED BY AGENT"');
  const bytes = strictBase64(member(raw, 'canonical_bytes'));
  if (bytes === null) want('canonical_bytes', 'strict, padded base64');
  else fields.output_commitment = outputCommitment(bytes);
  if (isHex64(prev)) fields.prev_digest = prev;
  else want('prev_digest', '64 lowercase hex digits');
  if (close === undefined || typeof close === 'boolean') fields.close = close ?? false;
  else want('close', 'a boolean when present');
  return { fields, problems };
}

/** The entry's output commitment: SHA-256 (hex) of its decoded canonical_bytes. */
export function outputCommitment(bytes: Uint8Array): string {
  return sha256Hex(bytes);
}

/**
 * The entry digest; null when a member it covers is missing or malformed.
 * - current (-07/-08/-09): SHA-256 of the UTF-8 of the canonical JSON (Python's json.dumps with
 *   sort_keys, compact separators, ensure_ascii: U+007F written \u007f) of {close, id, job_id,
 *   output_hash, prev_digest, provenance_class, seq, tool}, output_hash the output commitment in
 *   bare hex, close false when absent, seq as an integer (2.0 is written 2);
 * - 06: SHA-256 of the decoded canonical_bytes alone, so the metadata is bound by nothing.
 */
export function entryDigest(construction: Construction, e: EntryFields): string | null {
  if (e.output_commitment === null) return null;
  if (construction === '06') return e.output_commitment;
  if (
    e.id === null ||
    e.seq === null ||
    e.job_id === null ||
    e.tool === null ||
    e.provenance_class === null ||
    e.prev_digest === null ||
    e.close === null
  )
    return null;
  return sha256Hex(
    canonicalJson({
      close: e.close,
      id: e.id,
      job_id: e.job_id,
      output_hash: e.output_commitment,
      prev_digest: e.prev_digest,
      provenance_class: e.provenance_class,
      seq: e.seq,
      tool: e.tool,
    }),
  );
}
