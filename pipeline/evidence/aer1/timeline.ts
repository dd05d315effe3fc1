// AER-1 timelines (draft-zambo-aer1-09 §7.1–7.3, SPEC §5.2): the rules of one timeline and its
// comparison with the external commitments. Pure: the commitments and the study window come in
// as arguments.
//
// Every rule runs and every failure is reported; a check is 'skipped' when what it needs is
// missing or malformed, so it could not be decided. Bad evidence never throws; only a caller bug
// (closesAt not RFC 3339) does.
//
// A timeline is a bare JSON array or prereg's envelope {"format": "aer-1", "revision": "06"…"09",
// "entries": […]} declaring a revision. A bare array is read with the current (-07/-08/-09)
// construction, unless none of its entries has seq, job_id, tool or provenance_class: that is how
// -06 wrote timelines (SPEC §12.7), so it is read as -06 — safe, since a valid -06 chain is
// METADATA_UNBOUND and earns no proven credit. A commitment stored inside the document is
// circular and is ignored: unknown members are never read.
import { parseRfc3339 } from '../../formats/rfc3339.ts';
import {
  COMMITMENT_CHECKS,
  COMMITMENT_CODES,
  compareCommitments,
  type ChainCommitment,
  type CommitmentIndex,
  type CommitmentInformationalCode,
  type CommitmentProvenance,
} from './commitments.ts';
import { checkCatalogue, codeOfCheck, worstStatus, type CodeOf } from '../check-catalogue.ts';
import { entryDigest, METADATA_MEMBERS, readEntry, type Construction, type EntryFields } from './entry.ts';
import { isRecord, member } from '../../formats/canonical-json.ts';
import { describe, ZERO_DIGEST } from './fields.ts';
import type { CheckOutcome } from '../check-outcome.ts';

/** Revisions the envelope may declare; 06 is checked, but its metadata is bound by nothing. */
const TIMELINE_REVISIONS = ['06', '07', '08', '09'] as const;

/** The checks, in the order they run and are recorded (chain_checks has one column each). */
export const TIMELINE_CHECKS = ['structure', 'revision', 'genesis', 'seq', 'job', 'close', 'links', ...COMMITMENT_CHECKS] as const;
export type TimelineCheck = (typeof TIMELINE_CHECKS)[number];

/**
 * Every code a timeline reports, with its check and the status it implies, first match wins
 * (SPEC §5.2): a broken chain rule is BROKEN; a failed comparison with the commitments UNANCHORED
 * (a -06 timeline is METADATA_UNBOUND before that, by its construction). 'structure' reports
 * CHAIN_MALFORMED or CHAIN_EMPTY.
 */
export const TIMELINE_CATALOGUE = checkCatalogue(TIMELINE_CHECKS, ['BROKEN', 'UNANCHORED'], {
  CHAIN_MALFORMED: { check: 'structure', status: 'BROKEN' },
  CHAIN_EMPTY: { check: 'structure', status: 'BROKEN' },
  CHAIN_REVISION_UNSUPPORTED: { check: 'revision', status: 'BROKEN' },
  CHAIN_GENESIS_INVALID: { check: 'genesis', status: 'BROKEN' },
  CHAIN_SEQ_GAP: { check: 'seq', status: 'BROKEN' },
  CHAIN_JOB_MISMATCH: { check: 'job', status: 'BROKEN' },
  CHAIN_CLOSE_MISPLACED: { check: 'close', status: 'BROKEN' },
  CHAIN_LINK_BROKEN: { check: 'links', status: 'BROKEN' },
  ...COMMITMENT_CODES,
});

/** The code each failed check reports (for 'structure', CHAIN_MALFORMED; CHAIN_EMPTY is given where it applies). */
export const TIMELINE_CHECK_CODES = codeOfCheck(TIMELINE_CATALOGUE);

export type TimelineReasonCode = CodeOf<typeof TIMELINE_CATALOGUE>;
export type TimelineStatus = 'ANCHORED' | 'UNANCHORED' | 'BROKEN' | 'METADATA_UNBOUND';

export interface TimelineEntrySummary {
  seq: number;
  /** The entry's id member (an identifier, not a hash). */
  id: string;
  /** The entry digest as recomputed here, by the timeline's construction. */
  digest: string;
  /** SHA-256 (hex) of the decoded canonical_bytes, computed here. */
  output_commitment: string;
  /** null for a -06 entry that does not carry it. */
  tool: string | null;
  provenance_class: string | null;
}

export interface TimelineVerification {
  status: TimelineStatus;
  /** Every failed rule, sorted, no duplicates; the informational codes included. */
  reason_codes: TimelineReasonCode[];
  /**
   * The codes of `codes` that never change the status (SPEC §12.3): COMMITMENT_FOREIGN (a
   * commitment not binding the owner names another count or final digest), COMMITMENT_SIGNATURE_INVALID.
   */
  informational_codes: CommitmentInformationalCode[];
  checks: Record<TimelineCheck, CheckOutcome>;
  /** 'array' for a bare timeline, 'envelope' for prereg's envelope, null for neither. */
  form: 'array' | 'envelope' | null;
  /** The envelope's declared revision when it is a string; null for a bare array. */
  revision: string | null;
  /**
   * The construction the entry digests were computed with ('06' also for a bare array whose
   * entries carry none of seq, job_id, tool, provenance_class); null when the revision is unknown.
   */
  construction: Construction | null;
  /** Entry 1's job_id, by which the commitment is looked up. */
  job_id: string | null;
  /** Number of entries (0 when there is no entries array). */
  entry_count: number;
  /** Recomputed digest of the last entry; null when it cannot be computed. */
  final_entry_digest: string | null;
  /**
   * One per entry, with recomputed digests; empty unless every entry was well-formed and seq ran
   * 1, 2, … or, under -06, no entry carries seq (so seq is the entry's position: a declared seq
   * such as 1e20 never reaches a table).
   */
  entries: TimelineEntrySummary[];
  /** The external commitment compared, or null when none was. */
  commitment: ChainCommitment | null;
  /** How that commitment came in (intake or operator-collected) and who dated it, when; null when none was compared. */
  commitment_provenance: CommitmentProvenance | null;
  /** Distinct provenance classes the entries declare, sorted: reported, never trusted. */
  provenance_classes: string[];
  /** What failed and where (e.g. `entries[3].prev_digest …`), for people; not a contract. */
  problems: string[];
}

/** Problems listed per check before the rest are counted only. */
const PROBLEMS_PER_CHECK = 5;

/** The outcomes, codes and problems of one verification, filled in as the checks run. */
class Report {
  readonly checks = Object.fromEntries(TIMELINE_CHECKS.map((c) => [c, 'skipped'])) as Record<TimelineCheck, CheckOutcome>;
  readonly codes = new Set<TimelineReasonCode>();
  readonly informational = new Set<CommitmentInformationalCode>();
  readonly problems: string[] = [];
  private readonly listed = new Map<TimelineCheck, number>();

  /** A check's outcome: failed wins over undecided ('skipped'). */
  record(check: TimelineCheck, failed: boolean, undecided = false, code: TimelineReasonCode = TIMELINE_CHECK_CODES[check]): void {
    this.checks[check] = failed ? 'fail' : undecided ? 'skipped' : 'pass';
    if (failed) this.codes.add(code);
  }

  /** A problem for people; a check's first few are listed, then one line says more were not. */
  problem(check: TimelineCheck, message: string): void {
    const n = (this.listed.get(check) ?? 0) + 1;
    this.listed.set(check, n);
    if (n <= PROBLEMS_PER_CHECK) this.problems.push(message);
    else if (n === PROBLEMS_PER_CHECK + 1) this.problems.push(`${check}: further failures not listed`);
  }

  result(fields: Partial<TimelineVerification>): TimelineVerification {
    const codes = [...new Set([...this.codes, ...this.informational])].sort();
    const base: TimelineVerification = {
      status: 'BROKEN',
      reason_codes: codes,
      informational_codes: [...this.informational].sort(),
      checks: this.checks,
      form: null,
      revision: null,
      construction: null,
      job_id: null,
      entry_count: 0,
      final_entry_digest: null,
      entries: [],
      commitment: null,
      commitment_provenance: null,
      provenance_classes: [],
      problems: this.problems,
      ...fields,
    };
    return { ...base, status: statusOf([...this.codes], base.construction) };
  }
}

/**
 * Verifies one timeline document and compares it with the external commitments. `window` is the
 * study's {opens_at, closes_at} (RFC 3339), or its closes_at alone (no lower bound): a commitment
 * counts only when published strictly before closes_at, and anchors only when its time is
 * plausible (not before opens_at, nor after its witnessed date or its retrieved_at).
 * `owner` is the system whose record submitted the timeline (null outside a study): only a
 * commitment binding it can make COMMITMENT_CONFLICT (SPEC §12.3, compareCommitments).
 */
export function verifyTimeline(
  doc: unknown,
  commitments: CommitmentIndex,
  window: string | { opens_at: string; closes_at: string },
  owner: string | null = null,
): TimelineVerification {
  const instant = (name: string, text: string) => {
    const at = parseRfc3339(text);
    if (at === null) throw new TypeError(`${name} must be an RFC 3339 date-time, got ${JSON.stringify(text)}`);
    return at;
  };
  const bounds =
    typeof window === 'string'
      ? { opens_at: null, closes_at: instant('closesAt', window) }
      : { opens_at: instant('opens_at', window.opens_at), closes_at: instant('closes_at', window.closes_at) };
  const report = new Report();

  // 1. The form: a bare array, or the envelope declaring a revision; other members are ignored.
  let raw: unknown[];
  let form: 'array' | 'envelope';
  let revision: string | null = null;
  if (Array.isArray(doc)) {
    [raw, form] = [doc, 'array'];
  } else if (isRecord(doc) && member(doc, 'format') === 'aer-1') {
    form = 'envelope';
    const declared = member(doc, 'revision'),
      entries = member(doc, 'entries');
    if (typeof declared === 'string') revision = declared;
    else report.problem('structure', `the envelope's revision must be a string such as "09", got ${describe(declared)}`);
    if (!Array.isArray(entries)) report.problem('structure', `the envelope's entries must be an array, got ${describe(entries)}`);
    if (revision !== null && !(TIMELINE_REVISIONS as readonly string[]).includes(revision)) {
      // An unknown revision is never judged by another revision's rules: nothing further runs.
      report.record('revision', true);
      report.problem('revision', `revision ${JSON.stringify(revision)} is not one of ${TIMELINE_REVISIONS.join(', ')}`);
      report.record('structure', !Array.isArray(entries));
      return report.result({ form, revision, entry_count: Array.isArray(entries) ? entries.length : 0 });
    }
    if (revision === null || !Array.isArray(entries)) {
      report.record('structure', true);
      return report.result({ form, revision, entry_count: Array.isArray(entries) ? entries.length : 0 });
    }
    raw = entries;
  } else {
    report.problem(
      'structure',
      `a timeline must be a JSON array of entries or an envelope {"format": "aer-1", "revision", "entries"}, got ${describe(doc)}`,
    );
    report.record('structure', true);
    return report.result({});
  }
  report.record('revision', false);
  const construction: Construction = revision === '06' || (form === 'array' && writtenAs06(raw)) ? '06' : 'current';

  // 2. Entries: each member read once; a malformed member is null and each rule needing it is
  //    undecided for that entry (its check is 'skipped' unless it failed elsewhere). Under -06 an
  //    absent seq or job_id leaves its rule undecided ('skipped': -06 has neither).
  const read = raw.map((e, i) => readEntry(e, i, construction));
  const entries = read.map((r) => r.fields);
  const unevenly = construction === '06' ? unevenlyCarried(raw) : [];
  const malformed = read.some((r) => r.problems.length > 0) || unevenly.length > 0;
  for (const r of read) for (const p of r.problems) report.problem('structure', p);
  for (const p of unevenly) report.problem('structure', p);
  const empty = entries.length === 0;
  if (empty) report.problem('structure', 'the timeline has no entries');
  report.record('structure', malformed || empty, false, malformed ? 'CHAIN_MALFORMED' : 'CHAIN_EMPTY');

  const digests = entries.map((e) => entryDigest(construction, e));
  const jobId = entries[0]?.job_id ?? null;
  const finalDigest = empty ? null : digests[entries.length - 1]!;
  if (!empty) verifyRules(entries, digests, jobId, report);

  // 3. The external commitment: the only witness of the timeline's length and last entry.
  let commitment: ChainCommitment | null = null;
  let provenance: CommitmentProvenance | null = null;
  if (jobId !== null) {
    const compared = compareCommitments(commitments, jobId, entries.length, finalDigest, bounds, owner);
    for (const [check, outcome] of Object.entries(compared.checks) as Array<[TimelineCheck, CheckOutcome]>) {
      report.record(check, outcome === 'fail', outcome === 'skipped');
    }
    for (const code of compared.informational) report.informational.add(code);
    for (const p of compared.problems) report.problems.push(p);
    commitment = compared.commitment;
    provenance = compared.provenance;
  }

  return report.result({
    form,
    revision,
    construction,
    job_id: jobId,
    entry_count: entries.length,
    final_entry_digest: finalDigest,
    entries:
      malformed || !(report.checks.seq === 'pass' || (construction === '06' && entries.every((e) => e.seq === null)))
        ? []
        : entries.map((e, i) => ({
            seq: i + 1,
            id: e.id!,
            digest: digests[i]!,
            output_commitment: e.output_commitment!,
            tool: e.tool,
            provenance_class: e.provenance_class,
          })),
    commitment,
    commitment_provenance: provenance,
    provenance_classes: [...new Set(entries.flatMap((e) => (e.provenance_class === null ? [] : [e.provenance_class])))].sort(),
  });
}

/** A bare array as -06 wrote it: at least one entry, and none carries seq, job_id, tool or provenance_class. */
function writtenAs06(raw: readonly unknown[]): boolean {
  return raw.length > 0 && raw.every((e) => !isRecord(e) || METADATA_MEMBERS.every((k) => member(e, k) === undefined));
}

/**
 * Under -06, seq and job_id are on every entry or on none: a rule over them cannot be decided
 * for some entries and not others. One problem per entry lacking a member others carry.
 */
function unevenlyCarried(raw: readonly unknown[]): string[] {
  const problems: string[] = [];
  for (const key of ['seq', 'job_id'] as const) {
    const carries = raw.map((e) => isRecord(e) && member(e, key) !== undefined);
    if (!carries.some(Boolean)) continue;
    carries.forEach((c, i) => {
      if (!c && isRecord(raw[i]))
        problems.push(`entries[${i}] has no ${key} though other entries carry one: under -06, ${key} is on every entry or on none`);
    });
  }
  return problems;
}

/**
 * The rules of every revision: entry 1's prev_digest is 64 zeros; seq runs 1, 2, … with no gap
 * or repeat; every job_id is entry 1's; close: true on the last entry and on no other; each
 * prev_digest is the previous entry's recomputed digest.
 */
function verifyRules(entries: readonly EntryFields[], digests: readonly (string | null)[], jobId: string | null, report: Report): void {
  const first = entries[0]!;
  const last = entries.length - 1;
  const genesisFailed = first.prev_digest !== null && first.prev_digest !== ZERO_DIGEST;
  report.record('genesis', genesisFailed, first.prev_digest === null);
  if (genesisFailed) report.problem('genesis', 'entries[0].prev_digest is not 64 zeros');

  const fail = { seq: false, job: false, close: false, links: false };
  const undecided = { seq: false, job: jobId === null, close: false, links: false };
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.seq === null) undecided.seq = true;
    else if (e.seq !== BigInt(i + 1)) {
      fail.seq = true;
      report.problem('seq', `entries[${i}].seq is ${e.seq}, expected ${i + 1}`);
    }
    if (e.job_id === null) undecided.job = true;
    else if (jobId !== null && e.job_id !== jobId) {
      fail.job = true;
      report.problem('job', `entries[${i}].job_id ${JSON.stringify(e.job_id)} differs from entry 1's ${JSON.stringify(jobId)}`);
    }
    if (e.close === null) undecided.close = true;
    else if (e.close !== (i === last)) {
      fail.close = true;
      report.problem(
        'close',
        i === last
          ? `the last entry, entries[${i}], does not carry close: true`
          : `entries[${i}] carries close: true but is not the last entry`,
      );
    }
    if (i > 0) {
      const before = digests[i - 1];
      if (e.prev_digest === null || before === null) undecided.links = true;
      else if (e.prev_digest !== before) {
        fail.links = true;
        report.problem('links', `entries[${i}].prev_digest is not the digest of entries[${i - 1}]`);
      }
    }
  }
  for (const check of ['seq', 'job', 'close', 'links'] as const) report.record(check, fail[check], undecided[check]);
}

/** First match wins (SPEC §5.2): BROKEN > METADATA_UNBOUND > ANCHORED > UNANCHORED, the codes' statuses read from the catalogue; `codes` without the informational ones. */
function statusOf(codes: readonly TimelineReasonCode[], construction: Construction | null): TimelineStatus {
  const implied = worstStatus(TIMELINE_CATALOGUE, codes, 'ANCHORED');
  if (implied === 'BROKEN') return 'BROKEN';
  return construction === '06' ? 'METADATA_UNBOUND' : implied;
}
