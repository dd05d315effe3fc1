// External chain commitments (draft-zambo-aer1-09 §7.3): the lines of inputs/commitments.jsonl
// the organizer collected when submissions closed, read strictly, indexed by job, and compared
// with a timeline. Only such a commitment can catch a timeline that was cut and made consistent
// again (tail cut and re-closed, head cut and renumbered) or whose last entry was substituted.
//
// A malformed line is reported with its file and line and never stops the other lines from
// counting (SPEC §5.2). Pure: the text comes in, nothing is read from disk.
import { parseJson, isRecord, JsonParseError, member } from '../../formats/canonical-json.ts';
import { compareInstants, parseRfc3339, type Rfc3339Instant } from '../../formats/rfc3339.ts';
import { describe, integerOf, isHex64, isNonEmptyString } from './fields.ts';

/**
 * One well-formed line: the draft's four members, plus how the organizer witnessed it. The draft
 * publishes the four alone (its conformance kit's commitment has nothing else), so a commitment
 * copied as published is accepted: the witness members are null when not recorded.
 */
export interface ChainCommitment {
  job_id: string;
  /** Entry digest of the timeline's last entry, 64 lowercase hex. */
  final_entry_digest: string;
  entry_count: number;
  /** When the timeline's owner published it: RFC 3339, a real date, any offset. */
  published_at: string;
  /** Who or what witnessed the publication (e.g. a log or a mirror); null when not recorded. */
  witness: string | null;
  /** How the organizer retrieved it (e.g. a URL); null when not recorded. */
  retrieved_via: string | null;
  /** When the organizer retrieved it: RFC 3339; null when not recorded. */
  retrieved_at: string | null;
}

/**
 * Where a line is: its file as the user named it, its 1-based line number, the byte offset of the
 * line's start and the SHA-256 of its bytes (as a rejected submission line is located).
 */
export interface CommitmentSource {
  file: string;
  line: number;
  byte_offset: number;
  line_sha256: string;
}

export interface MalformedCommitment extends CommitmentSource {
  /** The line's job_id when it has a usable one (the job it concerns), else null. */
  job_id: string | null;
  problems: string[];
}

/** One line of a commitments file, read: plain data, so it crosses to worker threads. */
export type CommitmentLine =
  | (CommitmentSource & { ok: true; commitment: ChainCommitment })
  | (MalformedCommitment & { ok: false });

/** The draft's members, all required. */
const REQUIRED = ['job_id', 'final_entry_digest', 'entry_count', 'published_at'];
/** prereg's record of how the line was collected: optional (absent or null: not recorded), well-formed when given. */
const WITNESS = ['witness', 'retrieved_via', 'retrieved_at'];
const MEMBERS = [...REQUIRED, ...WITNESS];

/**
 * Reads one parsed line. Pass the canonical parser's JsonValue: `entry_count` must be an integer
 * literal (`5.0` is not), which a plain JS number cannot show. Unknown members are malformed (a
 * misspelt member must not pass silently).
 */
export function readCommitmentLine(value: unknown, at: CommitmentSource): CommitmentLine {
  if (!isRecord(value)) return { ...at, ok: false, job_id: null, problems: [`a commitment must be a JSON object, got ${describe(value)}`] };
  const problems: string[] = [];
  for (const key of REQUIRED) if (!Object.hasOwn(value, key)) problems.push(`missing member "${key}"`);
  for (const key of Object.keys(value)) if (!MEMBERS.includes(key)) problems.push(`unknown member ${JSON.stringify(key)}`);
  const check = (key: string, ok: (v: unknown) => boolean, shape: string) => {
    const v = member(value, key);
    if (v !== undefined && !(v === null && WITNESS.includes(key)) && !ok(v)) problems.push(`"${key}" must be ${shape}, got ${describe(v)}`);
  };
  const count = integerOf(member(value, 'entry_count'), false);
  check('job_id', isNonEmptyString, 'a non-empty string');
  check('final_entry_digest', isHex64, '64 lowercase hex digits');
  check('entry_count', () => count !== null && count >= 1n && count <= BigInt(Number.MAX_SAFE_INTEGER), 'a positive JSON integer (5, not 5.0)');
  check('published_at', isInstant, 'an RFC 3339 date-time with a real date (e.g. 2026-10-01T18:30:00Z)');
  check('witness', isNonEmptyString, 'a non-empty string');
  check('retrieved_via', isNonEmptyString, 'a non-empty string');
  check('retrieved_at', isInstant, 'an RFC 3339 date-time with a real date');
  if (problems.length > 0) {
    const job = member(value, 'job_id');
    return { ...at, ok: false, job_id: isNonEmptyString(job) ? job : null, problems };
  }
  const v = value as Record<string, string | null | undefined>;
  return {
    ...at,
    ok: true,
    commitment: {
      job_id: v.job_id!, final_entry_digest: v.final_entry_digest!, entry_count: Number(count), published_at: v.published_at!,
      witness: v.witness ?? null, retrieved_via: v.retrieved_via ?? null, retrieved_at: v.retrieved_at ?? null,
    },
  };
}

/**
 * One line of a commitments file, as the line reader (pipeline/ingest/lines.ts) split, decoded
 * and checked it: parsed and read. A line that is not JSON is one more malformed line, never a
 * reason to stop.
 */
export function readCommitmentText(text: string, at: CommitmentSource): CommitmentLine {
  try {
    return readCommitmentLine(parseJson(text), at);
  } catch (err) {
    if (!(err instanceof JsonParseError)) throw err;
    return { ...at, ok: false, job_id: null, problems: [`${err.code}: ${err.message}`] };
  }
}

interface JobCommitments {
  /** Well-formed lines, in file order. */
  valid: Array<CommitmentSource & { commitment: ChainCommitment }>;
  malformed: MalformedCommitment[];
}

export interface CommitmentIndex {
  jobs: ReadonlyMap<string, JobCommitments>;
  /** Malformed lines with no usable job_id: they concern no timeline in particular. */
  unattributed: readonly MalformedCommitment[];
}

export function indexCommitments(lines: readonly CommitmentLine[]): CommitmentIndex {
  const jobs = new Map<string, JobCommitments>();
  const unattributed: MalformedCommitment[] = [];
  const of = (job: string) => {
    let j = jobs.get(job);
    if (!j) jobs.set(job, (j = { valid: [], malformed: [] }));
    return j;
  };
  for (const l of lines) {
    const at: CommitmentSource = { file: l.file, line: l.line, byte_offset: l.byte_offset, line_sha256: l.line_sha256 };
    if (l.ok) of(l.commitment.job_id).valid.push({ ...at, commitment: l.commitment });
    else if (l.job_id !== null) of(l.job_id).malformed.push({ ...at, job_id: l.job_id, problems: l.problems });
    else unattributed.push({ ...at, job_id: null, problems: l.problems });
  }
  return { jobs, unattributed };
}

export const COMMITMENT_CHECK_CODES = {
  commitment_found: 'COMMITMENT_MISSING',
  commitment_wellformed: 'COMMITMENT_MALFORMED',
  commitment_count: 'COMMITMENT_COUNT_MISMATCH',
  commitment_final_digest: 'COMMITMENT_FINAL_DIGEST_MISMATCH',
  commitment_timely: 'COMMITMENT_LATE',
  commitment_consistent: 'COMMITMENT_CONFLICT',
} as const;
export type CommitmentCheck = keyof typeof COMMITMENT_CHECK_CODES;
type Outcome = 'pass' | 'fail' | 'skipped';

export interface CommitmentComparison {
  checks: Record<CommitmentCheck, Outcome>;
  /** The well-formed commitment compared (the best candidate), or null when there was none. */
  commitment: ChainCommitment | null;
  problems: string[];
}

/**
 * Compares a timeline (its entry 1's job id, its length and its recomputed final digest) with the
 * job's commitments. The best well-formed candidate decides: the one matching everything, else
 * the final digest, else the count, else published in time; ties go to the first in file order.
 * A malformed line of the job is COMMITMENT_MALFORMED unless a well-formed one anchors the
 * timeline (it then changes nothing, and is still listed in the problems).
 *
 * Decision: a job committed in more than one way before closes_at (well-formed lines that name
 * different final digests or counts) is COMMITMENT_CONFLICT and anchored by none of them: an
 * owner who published commitments to a full and to a cut timeline could choose after the fact
 * which one to submit, which is what a commitment exists to prevent.
 */
export function compareCommitments(index: CommitmentIndex, jobId: string, entryCount: number, finalDigest: string | null, closesAt: Rfc3339Instant): CommitmentComparison {
  const checks: Record<CommitmentCheck, Outcome> = { commitment_found: 'skipped', commitment_wellformed: 'skipped', commitment_count: 'skipped', commitment_final_digest: 'skipped', commitment_timely: 'skipped', commitment_consistent: 'skipped' };
  const problems: string[] = [];
  const job = index.jobs.get(jobId);
  const malformed = job?.malformed ?? [];
  for (const m of malformed) problems.push(`${m.file}:${m.line}: malformed commitment for this job: ${m.problems.join('; ')}`);
  if (!job) {
    checks.commitment_found = 'fail';
    problems.push(`no commitment for job_id ${JSON.stringify(jobId)}`);
    return { checks, commitment: null, problems };
  }
  checks.commitment_found = 'pass';
  const timely = (c: ChainCommitment) => compareInstants(parseRfc3339(c.published_at)!, closesAt) < 0;
  let best: (typeof job.valid)[number] | null = null;
  let rank = -1;
  for (const v of job.valid) {
    const c = v.commitment;
    const r = (finalDigest !== null && c.final_entry_digest === finalDigest ? 4 : 0) + (c.entry_count === entryCount ? 2 : 0) + (timely(c) ? 1 : 0);
    if (r > rank) [rank, best] = [r, v];
  }
  if (best === null) {
    checks.commitment_wellformed = 'fail';
    return { checks, commitment: null, problems };
  }
  const committed = new Map<string, string[]>();
  for (const v of job.valid) {
    if (!timely(v.commitment)) continue;
    const key = `${v.commitment.final_entry_digest} / ${v.commitment.entry_count} entries`;
    committed.set(key, [...(committed.get(key) ?? []), `${v.file}:${v.line}`]);
  }
  checks.commitment_consistent = committed.size > 1 ? 'fail' : 'pass';
  if (committed.size > 1) {
    problems.push(`job ${JSON.stringify(jobId)} was committed ${committed.size} ways before closes_at: ${[...committed].map(([k, at]) => `${k} (${at.join(', ')})`).join('; ')}`);
  }
  const c = best.commitment;
  const countFailed = c.entry_count !== entryCount;
  const digestFailed = finalDigest !== null && c.final_entry_digest !== finalDigest;
  const late = !timely(c);
  checks.commitment_count = countFailed ? 'fail' : 'pass';
  checks.commitment_final_digest = digestFailed ? 'fail' : finalDigest === null ? 'skipped' : 'pass';
  checks.commitment_timely = late ? 'fail' : 'pass';
  const anchored = !countFailed && !late && finalDigest !== null && !digestFailed && committed.size <= 1;
  checks.commitment_wellformed = malformed.length > 0 && !anchored ? 'fail' : 'pass';
  const where = `${best.file}:${best.line}`;
  if (countFailed) problems.push(`the timeline has ${entryCount} entries, its commitment (${where}) says ${c.entry_count}`);
  if (digestFailed) problems.push(`the recomputed final entry digest ${finalDigest} differs from the committed ${c.final_entry_digest} (${where})`);
  if (late) problems.push(`the commitment (${where}) was published at ${c.published_at}, not before closes_at`);
  return { checks, commitment: c, problems };
}

function isInstant(v: unknown): boolean {
  return typeof v === 'string' && parseRfc3339(v) !== null;
}
