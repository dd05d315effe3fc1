// AER-1 execution-receipt chains (SPEC §5.2): verification of one chain document against the
// organizer's external commitments (inputs/commitments.jsonl). Pure: no file system, clock or
// network — the commitments and the study's closes_at come in as arguments.
//
// Every rule runs and every failure is reported (STYLE.md: a study needs each check's outcome);
// a check is 'skipped' when what it needs is missing or malformed, so it could not be decided.
// Bad evidence never throws; only a caller bug (closesAt not an ISO-8601 UTC instant) does.
//
// The document may be plain JS (JSON.parse / toPlain) or a parsed JsonValue (objects without a
// prototype, numbers as JsonNumber); both give the same result for the same text.
//
// Only the external commitment can catch a chain that was shortened and made consistent again
// (tail cut and re-closed, head cut and renumbered) or whose last entry was substituted. A
// commitment stored inside the chain document — a `commitment` key on the document or on an
// entry, or any other unknown key — is circular (the submitter vouches for itself) and is
// ignored entirely: unknown keys are neither read nor reported.
import { JsonNumber, canonicalJson, sha256Hex } from '../formats/canonical-json.ts';
import type { ReasonCode } from '../reasons.ts';

// ------------------------------------------------------------------------------------------
// Commitments (inputs/commitments.jsonl)

/** One line of inputs/commitments.jsonl, collected by the organizer when submissions close. */
export interface ChainCommitment {
  job_id: string;
  /** Entry digest of the chain's last entry, 64 lowercase hex. */
  final_entry_digest: string;
  entry_count: number;
  /** When the chain's owner published it: ISO-8601 UTC ("…Z"). */
  published_at: string;
  /** Who or what witnessed the publication (e.g. a log or a mirror). */
  witness: string;
  /** How the organizer retrieved it (e.g. a URL). */
  retrieved_via: string;
  /** When the organizer retrieved it: ISO-8601 UTC. */
  retrieved_at: string;
}

/** Commitments by job_id, each list in file order. */
export type CommitmentIndex = ReadonlyMap<string, readonly ChainCommitment[]>;

export function indexCommitments(list: readonly ChainCommitment[]): CommitmentIndex {
  const index = new Map<string, ChainCommitment[]>();
  for (const c of list) {
    const same = index.get(c.job_id);
    if (same) same.push(c);
    else index.set(c.job_id, [c]);
  }
  return index;
}

const COMMITMENT_FIELDS = ['job_id', 'final_entry_digest', 'entry_count', 'published_at', 'witness', 'retrieved_via', 'retrieved_at'];

/**
 * Problems with one line of inputs/commitments.jsonl (already parsed), each naming the field;
 * empty when the line is a valid ChainCommitment. Unknown keys are problems (a misspelt field
 * must not pass silently). Accepts plain JS or a JsonValue (entry_count as JsonNumber).
 */
export function validateCommitmentLine(value: unknown): string[] {
  if (!isRecord(value)) return [`a commitment must be a JSON object, got ${describe(value)}`];
  const problems: string[] = [];
  for (const key of COMMITMENT_FIELDS) {
    if (!Object.hasOwn(value, key)) problems.push(`missing field "${key}"`);
  }
  for (const key of Object.keys(value)) {
    if (!COMMITMENT_FIELDS.includes(key)) problems.push(`unknown field ${JSON.stringify(key)}`);
  }
  const field = (key: string, ok: (v: unknown) => boolean, want: string) => {
    if (Object.hasOwn(value, key) && !ok(value[key])) problems.push(`field "${key}" must be ${want}, got ${describe(value[key])}`);
  };
  field('job_id', isNonEmptyString, 'a non-empty string');
  field('final_entry_digest', isHex64, '64 lowercase hex digits');
  field('entry_count', (v) => { const n = integerValue(v); return typeof n === 'number' && n >= 1; }, 'a positive integer');
  field('published_at', (v) => typeof v === 'string' && utcInstant(v) !== null, 'an ISO-8601 UTC timestamp (YYYY-MM-DDTHH:MM:SS[.fff]Z)');
  field('witness', isNonEmptyString, 'a non-empty string');
  field('retrieved_via', isNonEmptyString, 'a non-empty string');
  field('retrieved_at', (v) => typeof v === 'string' && utcInstant(v) !== null, 'an ISO-8601 UTC timestamp (YYYY-MM-DDTHH:MM:SS[.fff]Z)');
  return problems;
}

// ------------------------------------------------------------------------------------------
// Result

/** Revisions this verifier knows; 06 is verified but its metadata is unbound (SPEC §5.2). */
export const CHAIN_REVISIONS = ['06', '07', '08', '09'] as const;

/** The checks, in the order they run and are recorded. */
export const CHAIN_CHECKS = [
  'structure', 'revision', 'genesis', 'seq', 'job', 'close', 'receipt_hash', 'links',
  'commitment_found', 'commitment_count', 'commitment_final_digest', 'commitment_timely',
] as const;
export type ChainCheck = (typeof CHAIN_CHECKS)[number];
export type ChainCheckOutcome = 'pass' | 'fail' | 'skipped';

/**
 * The code each failed check reports. 'structure' reports CHAIN_MALFORMED for a document of the
 * wrong shape and CHAIN_EMPTY for an empty entries array (or both).
 */
export const CHAIN_CHECK_CODES = {
  structure: 'CHAIN_MALFORMED',
  revision: 'CHAIN_REVISION_UNSUPPORTED',
  genesis: 'CHAIN_GENESIS_INVALID',
  seq: 'CHAIN_SEQ_GAP',
  job: 'CHAIN_JOB_MISMATCH',
  close: 'CHAIN_CLOSE_MISPLACED',
  receipt_hash: 'CHAIN_RECEIPT_HASH_MISMATCH',
  links: 'CHAIN_LINK_BROKEN',
  commitment_found: 'COMMITMENT_MISSING',
  commitment_count: 'COMMITMENT_COUNT_MISMATCH',
  commitment_final_digest: 'COMMITMENT_FINAL_DIGEST_MISMATCH',
  commitment_timely: 'COMMITMENT_LATE',
} as const satisfies Record<ChainCheck, ReasonCode>;

export type ChainReasonCode = (typeof CHAIN_CHECK_CODES)[ChainCheck] | 'CHAIN_EMPTY';
const CHAIN_EMPTY = 'CHAIN_EMPTY' satisfies ReasonCode;

export type ChainStatus = 'ANCHORED' | 'UNANCHORED' | 'BROKEN' | 'METADATA_UNBOUND';

export interface ChainEntrySummary {
  seq: number;
  id: string;
  /** The entry digest as recomputed here (revision 06: the id). */
  digest: string;
  output_hash: string;
  tool: string;
  provenance_class: string;
}

export interface ChainVerification {
  status: ChainStatus;
  /** Every failed rule, sorted, no duplicates. */
  codes: ChainReasonCode[];
  checks: Record<ChainCheck, ChainCheckOutcome>;
  /** The document's revision when it is a string, else null. */
  revision: string | null;
  /** Entry 1's job_id, by which the commitment is looked up. */
  job_id: string | null;
  /** Length of the entries array (0 when there is none). */
  entry_count: number;
  /** Recomputed digest of the last entry; null when it cannot be computed. */
  final_entry_digest: string | null;
  /** One per entry, with recomputed digests; empty unless the structure check passed. */
  entries: ChainEntrySummary[];
  /** The commitment matched, or the best candidate compared; null when none was compared. */
  commitment: ChainCommitment | null;
  /** Distinct provenance classes the entries declare, sorted: reported, never trusted. */
  provenance_classes: string[];
  /** What failed and where (e.g. `entries[3].prev_digest …`), for people; not a contract. */
  problems: string[];
}

// ------------------------------------------------------------------------------------------
// Verification

const ZERO_DIGEST = '0'.repeat(64);
const HEX64 = /^[0-9a-f]{64}$/;
const INTEGER_LEXEME = /^-?(?:0|[1-9][0-9]*)$/;
const TRAILING_ZEROS = /0+$/;
const UTC = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?Z$/;
/** Problems listed per check before the rest are counted only. */
const PROBLEMS_PER_CHECK = 5;

/** An entry's fields as read; null where the field is missing or malformed. */
interface Entry {
  prev: string | null;
  seq: number | bigint | null;
  job: string | null;
  id: string | null;
  tool: string | null;
  pc: string | null;
  bytes: Buffer | null;
  output: string | null;
  /** false when absent; null when present but not a boolean. */
  close: boolean | null;
}

/** The outcomes, codes and problems of one verification, filled in as the checks run. */
class Report {
  readonly checks = Object.fromEntries(CHAIN_CHECKS.map((c) => [c, 'skipped'])) as Record<ChainCheck, ChainCheckOutcome>;
  readonly codes = new Set<ChainReasonCode>();
  readonly problems: string[] = [];
  private readonly listed = new Map<ChainCheck, number>();
  malformed = false;

  /** A check's outcome: failed wins over undecided ('skipped'). */
  record(check: ChainCheck, failed: boolean, undecided: boolean, code: ChainReasonCode = CHAIN_CHECK_CODES[check]): void {
    this.checks[check] = failed ? 'fail' : undecided ? 'skipped' : 'pass';
    if (failed) this.codes.add(code);
  }

  /** A problem for people; a check's first few are listed, then one line says more were not. */
  problem(check: ChainCheck, message: string): void {
    const n = (this.listed.get(check) ?? 0) + 1;
    this.listed.set(check, n);
    if (n <= PROBLEMS_PER_CHECK) this.problems.push(message);
    else if (n === PROBLEMS_PER_CHECK + 1) this.problems.push(`${check}: further failures not listed`);
  }

  malformedField(message: string): void {
    this.malformed = true;
    this.problem('structure', message);
  }

  result(fields: Partial<ChainVerification>): ChainVerification {
    const codes = [...this.codes].sort();
    return {
      status: statusOf(codes, fields.revision ?? null),
      codes,
      checks: this.checks,
      revision: null,
      job_id: null,
      entry_count: 0,
      final_entry_digest: null,
      entries: [],
      commitment: null,
      provenance_classes: [],
      problems: this.problems,
      ...fields,
    };
  }
}

/**
 * Verify one AER-1 chain document (SPEC §5.2) and match it against the external commitments.
 * `closesAt` is the study's closes_at (ISO-8601 UTC); a commitment counts only when published
 * strictly before it.
 */
export function verifyChain(doc: unknown, commitments: CommitmentIndex, closesAt: string): ChainVerification {
  const closes = utcInstant(closesAt);
  if (closes === null) throw new TypeError(`closesAt must be an ISO-8601 UTC timestamp, got ${JSON.stringify(closesAt)}`);
  const report = new Report();

  // 1. Envelope: {"format":"aer-1","revision":…,"entries":[…]}; other keys are ignored.
  if (!isRecord(doc)) {
    report.problem('structure', `the chain document must be a JSON object, got ${describe(doc)}`);
    report.record('structure', true, false);
    return report.result({});
  }
  if (doc['format'] !== 'aer-1') report.malformedField(`format must be "aer-1", got ${describe(doc['format'])}`);
  const revision = typeof doc['revision'] === 'string' ? doc['revision'] : null;
  if (revision === null) report.malformedField(`revision must be a string such as "09", got ${describe(doc['revision'])}`);
  const rawEntries = Array.isArray(doc['entries']) ? (doc['entries'] as unknown[]) : null;
  if (rawEntries === null) report.malformedField(`entries must be an array, got ${describe(doc['entries'])}`);
  const entryCount = rawEntries?.length ?? 0;

  // 2. Revision. An unknown one is never judged by another revision's rules: nothing further
  //    is evaluated (the entries' shape included, which is the revision's to define).
  if (revision === null || !(CHAIN_REVISIONS as readonly string[]).includes(revision)) {
    if (revision !== null) {
      report.record('revision', true, false);
      report.problem('revision', `revision ${JSON.stringify(revision)} is not one of ${CHAIN_REVISIONS.join(', ')}`);
    }
    report.record('structure', report.malformed, false);
    return report.result({ revision, entry_count: entryCount });
  }
  report.record('revision', false, false);
  if (rawEntries === null) {
    report.record('structure', true, false);
    return report.result({ revision });
  }

  // 3. Entries: each field read once; a malformed field is null and each rule needing it is
  //    undecided for that entry (the check is 'skipped' unless it failed elsewhere).
  const entries = rawEntries.map((raw, i) => readEntry(raw, i, report));
  const empty = entries.length === 0;
  if (empty) {
    report.codes.add(CHAIN_EMPTY);
    report.problem('structure', 'entries is empty');
  }
  report.record('structure', report.malformed || empty, false, report.malformed ? 'CHAIN_MALFORMED' : CHAIN_EMPTY);

  const v06 = revision === '06';
  const digests = entries.map((e) => (v06 ? e.id : entryDigest(e)));
  const last = entries.length - 1;
  const jobId = entries[0]?.job ?? null;
  const finalDigest = empty ? null : digests[last]!;
  if (!empty) verifyEntries(entries, digests, jobId, report);

  // 4. The external commitment: the only witness of the chain's length and last entry.
  let commitment: ChainCommitment | null = null;
  if (jobId !== null) {
    const candidates = (commitments.get(jobId) ?? []).filter((c) => c.job_id === jobId);
    report.record('commitment_found', candidates.length === 0, false);
    if (candidates.length === 0) report.problem('commitment_found', `no commitment for job_id ${JSON.stringify(jobId)}`);
    // The best candidate: matching everything, else the final digest, else the count, else
    // published in time; ties go to the first in file order.
    let rank = -1;
    for (const c of candidates) {
      const r = (finalDigest !== null && c.final_entry_digest === finalDigest ? 4 : 0) +
        (c.entry_count === entryCount ? 2 : 0) + (isBefore(c.published_at, closes) ? 1 : 0);
      if (r > rank) [rank, commitment] = [r, c];
    }
    if (commitment !== null) {
      const c: ChainCommitment = commitment;
      const countFailed = c.entry_count !== entryCount;
      const digestFailed = finalDigest !== null && c.final_entry_digest !== finalDigest;
      const late = !isBefore(c.published_at, closes);
      report.record('commitment_count', countFailed, false);
      report.record('commitment_final_digest', digestFailed, finalDigest === null);
      report.record('commitment_timely', late, false);
      if (countFailed) report.problem('commitment_count', `the chain has ${entryCount} entries, its commitment says ${String(c.entry_count)}`);
      if (digestFailed) report.problem('commitment_final_digest', `the recomputed final entry digest ${finalDigest} differs from the committed ${String(c.final_entry_digest)}`);
      if (late) report.problem('commitment_timely', `the commitment was published at ${String(c.published_at)}, not before closes_at ${closesAt}`);
    }
  }

  const complete = !report.malformed && !empty;
  return report.result({
    revision,
    job_id: jobId,
    entry_count: entryCount,
    final_entry_digest: finalDigest,
    entries: complete
      ? entries.map((e, i) => ({ seq: Number(e.seq), id: e.id!, digest: digests[i]!, output_hash: e.output!, tool: e.tool!, provenance_class: e.pc! }))
      : [],
    commitment,
    provenance_classes: [...new Set(entries.flatMap((e) => (e.pc === null ? [] : [e.pc])))].sort(),
  });
}

/**
 * The entry rules of SPEC §5.2 (all revisions): entry 1's prev_digest is 64 zeros; seq starts
 * at 1 and increases by 1 (no gap, no repeat); every job_id is entry 1's; exactly the last
 * entry closes; id = SHA-256(decoded canonical_bytes); prev_digest = the previous entry's digest.
 */
function verifyEntries(entries: readonly Entry[], digests: readonly (string | null)[], jobId: string | null, report: Report): void {
  const first = entries[0]!;
  const last = entries.length - 1;
  const genesisFailed = first.prev !== null && first.prev !== ZERO_DIGEST;
  report.record('genesis', genesisFailed, first.prev === null);
  if (genesisFailed) report.problem('genesis', 'entries[0].prev_digest is not 64 zeros');

  let seqFail = false, seqUndecided = false;
  let jobFail = false, jobUndecided = jobId === null;
  let closeFail = false, closeUndecided = false;
  let hashFail = false, hashUndecided = false;
  let linkFail = false, linkUndecided = false;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.seq === null) seqUndecided = true;
    else if (e.seq !== i + 1) {
      seqFail = true;
      report.problem('seq', `entries[${i}].seq is ${String(e.seq)}, expected ${i + 1}`);
    }
    if (e.job === null) jobUndecided = true;
    else if (jobId !== null && e.job !== jobId) {
      jobFail = true;
      report.problem('job', `entries[${i}].job_id ${JSON.stringify(e.job)} differs from entry 1's ${JSON.stringify(jobId)}`);
    }
    if (e.close === null) closeUndecided = true;
    else if (e.close !== (i === last)) {
      closeFail = true;
      report.problem('close', i === last ? `the last entry, entries[${i}], does not carry close: true` : `entries[${i}] carries close: true but is not the last entry`);
    }
    if (e.id === null || e.bytes === null) hashUndecided = true;
    else if (sha256Hex(e.bytes) !== e.id) {
      hashFail = true;
      report.problem('receipt_hash', `entries[${i}].id is not the SHA-256 of its decoded canonical_bytes`);
    }
    if (i > 0) {
      const before = digests[i - 1];
      if (e.prev === null || before === null) linkUndecided = true;
      else if (e.prev !== before) {
        linkFail = true;
        report.problem('links', `entries[${i}].prev_digest is not the digest of entries[${i - 1}]`);
      }
    }
  }
  report.record('seq', seqFail, seqUndecided);
  report.record('job', jobFail, jobUndecided);
  report.record('close', closeFail, closeUndecided);
  report.record('receipt_hash', hashFail, hashUndecided);
  report.record('links', linkFail, linkUndecided);
}

/** First match wins (SPEC §5.2): BROKEN > METADATA_UNBOUND > ANCHORED > UNANCHORED. */
function statusOf(codes: readonly ChainReasonCode[], revision: string | null): ChainStatus {
  if (codes.some((c) => c.startsWith('CHAIN_'))) return 'BROKEN';
  if (revision === '06') return 'METADATA_UNBOUND';
  return codes.length === 0 ? 'ANCHORED' : 'UNANCHORED';
}

/**
 * Entry digest, revisions 07–09: SHA-256 of the canonical JSON (SPEC §3) of
 * {close, id, job_id, output_hash, prev_digest, provenance_class, seq, tool}, close false when
 * absent. Null when a field it covers is missing or malformed.
 */
function entryDigest(e: Entry): string | null {
  if (e.prev === null || e.seq === null || e.job === null || e.id === null || e.tool === null ||
      e.pc === null || e.output === null || e.close === null) return null;
  return sha256Hex(canonicalJson({
    close: e.close, id: e.id, job_id: e.job, output_hash: e.output, prev_digest: e.prev,
    provenance_class: e.pc, seq: e.seq, tool: e.tool,
  }));
}

/** Reads entry i; unknown keys (an embedded `commitment` among them) are ignored. */
function readEntry(raw: unknown, i: number, report: Report): Entry {
  const e: Entry = { prev: null, seq: null, job: null, id: null, tool: null, pc: null, bytes: null, output: null, close: null };
  if (!isRecord(raw)) {
    report.malformedField(`entries[${i}] must be an object, got ${describe(raw)}`);
    return e;
  }
  const own = (key: string): unknown => (Object.hasOwn(raw, key) ? raw[key] : undefined);
  const prev = own('prev_digest'), id = own('id'), job = own('job_id'), tool = own('tool'), pc = own('provenance_class');
  const output = own('output_hash'), seq = own('seq'), b64 = own('canonical_bytes'), close = own('close');
  if (isHex64(prev)) e.prev = prev;
  else report.malformedField(fieldProblem(i, 'prev_digest', '64 lowercase hex digits', prev));
  if (isHex64(id)) e.id = id;
  else report.malformedField(fieldProblem(i, 'id', '64 lowercase hex digits', id));
  if (isNonEmptyString(job)) e.job = job;
  else report.malformedField(fieldProblem(i, 'job_id', 'a non-empty string', job));
  if (typeof tool === 'string') e.tool = tool;
  else report.malformedField(fieldProblem(i, 'tool', 'a string', tool));
  if (typeof pc === 'string') e.pc = pc;
  else report.malformedField(fieldProblem(i, 'provenance_class', 'a string', pc));
  if (typeof output === 'string') e.output = output;
  else report.malformedField(fieldProblem(i, 'output_hash', 'a string', output));
  e.seq = integerValue(seq);
  if (e.seq === null) report.malformedField(fieldProblem(i, 'seq', 'an integer', seq));
  if (typeof b64 === 'string') {
    // Strict base64 (RFC 4648 §4, padded, no whitespace): Node's decoder is lenient, so a text is
    // accepted only when it is exactly the encoding of what it decodes to.
    const bytes = Buffer.from(b64, 'base64');
    if (bytes.toString('base64') === b64) e.bytes = bytes;
  }
  if (e.bytes === null) report.malformedField(fieldProblem(i, 'canonical_bytes', 'padded base64', b64));
  if (close === undefined || typeof close === 'boolean') e.close = close ?? false;
  else report.malformedField(fieldProblem(i, 'close', 'a boolean when present', close));
  return e;
}

function fieldProblem(i: number, key: string, want: string, got: unknown): string {
  return `entries[${i}].${key} must be ${want}, got ${describe(got)}`;
}

// ------------------------------------------------------------------------------------------
// Small readers

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
}

function isHex64(v: unknown): v is string {
  return typeof v === 'string' && HEX64.test(v);
}

function isNonEmptyString(v: unknown): v is string {
  return typeof v === 'string' && v !== '';
}

/** An integer as a number when safe, else a bigint; null for anything else (1.5, 1.0 as JsonNumber, "1"). */
function integerValue(v: unknown): number | bigint | null {
  if (typeof v === 'number') return Number.isInteger(v) ? (Number.isSafeInteger(v) ? v + 0 : BigInt(v)) : null;
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) && BigInt(Number(v)) === v ? Number(v) : v;
  if (v instanceof JsonNumber) return INTEGER_LEXEME.test(v.lexeme) ? integerValue(BigInt(v.lexeme)) : null;
  return null;
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (v instanceof JsonNumber) return v.lexeme;
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return JSON.stringify(v.length > 80 ? v.slice(0, 80) + '…' : v);
  return String(v);
}

/** An ISO-8601 UTC instant as whole seconds since the epoch and the fraction's digits. */
interface Instant {
  seconds: number;
  fraction: string;
}

function utcInstant(s: string): Instant | null {
  const m = UTC.exec(s);
  if (m === null) return null;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (h > 23 || mi > 59 || sec > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  date.setUTCHours(h, mi, sec, 0);
  return { seconds: date.getTime() / 1000, fraction: (m[7] ?? '').replace(TRAILING_ZEROS, '') };
}

/** `at` is a valid ISO-8601 UTC instant strictly before `limit`; anything else is not timely. */
function isBefore(at: unknown, limit: Instant): boolean {
  const t = typeof at === 'string' ? utcInstant(at) : null;
  if (t === null) return false;
  if (t.seconds !== limit.seconds) return t.seconds < limit.seconds;
  const width = Math.max(t.fraction.length, limit.fraction.length);
  return t.fraction.padEnd(width, '0') < limit.fraction.padEnd(width, '0');
}
