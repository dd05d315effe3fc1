// External chain commitments (draft-zambo-aer1-09 §7.3): the lines of inputs/commitments.jsonl
// the organizer collected when submissions closed, and of inputs/commitments/<system_id>.jsonl
// each system submitted through intake, read strictly, indexed by job, and compared with a
// timeline. Only such a commitment can catch a timeline that was cut and made consistent again
// (tail cut and re-closed, head cut and renumbered) or whose last entry was substituted.
//
// Who may cancel what (SPEC §12.3): any well-formed commitment published in the window and dated
// plausibly (below) anchors the timeline it matches, whoever published it; only one that binds the timeline's owner (signed
// by one of its agent keys, or received from it through intake) can make COMMITMENT_CONFLICT.
// Another that differs is COMMITMENT_FOREIGN; a signature no registered key verifies is
// COMMITMENT_SIGNATURE_INVALID; both informational.
//
// When a commitment was published is its committer's claim; the time that counts is its witness's:
// the TSA date of the intake entry that brought its file in, or the seal's for the
// operator-collected file (CommitmentWitness). A claim before opens_at, after its witnessed date,
// or after its own retrieved_at is COMMITMENT_TIME_IMPLAUSIBLE: a participant backdating a
// commitment anchors nothing.
//
// A malformed line is reported with its file and line and never stops the other lines from
// counting (SPEC §5.2). Pure: the text and the keys come in, nothing is read from disk.
import type { KeyObject } from 'node:crypto';
import { canonicalJson, parseJson, isRecord, JsonParseError, member } from '../../formats/canonical-json.ts';
import { verifySignedBytes } from '../intake/ed25519.ts';
import { compareInstants, parseRfc3339, type Rfc3339Instant } from '../../formats/rfc3339.ts';
import { describe, integerOf, isHex64, isNonEmptyString } from './fields.ts';

/**
 * One line of a commitments file as schemas/commitment.schema.json admits it
 * (test/formats/schema-types.test.ts checks that the two agree): the draft's four members, how the
 * organizer witnessed it, and the owner's signature. The draft publishes the four alone (its
 * conformance kit's commitment has nothing else), so a commitment copied as published is accepted.
 */
export interface CommitmentDocument {
  job_id: string;
  /** Entry digest of the timeline's last entry, 64 lowercase hex. */
  final_entry_digest: string;
  entry_count: number;
  /** When the timeline's owner published it: RFC 3339, a real date, any offset. */
  published_at: string;
  /** Who or what witnessed the publication (e.g. a log or a mirror); null when not recorded. */
  witness?: string | null;
  /** How the organizer retrieved it (e.g. a URL); null when not recorded. */
  retrieved_via?: string | null;
  /** When the organizer retrieved it: RFC 3339; null when not recorded. */
  retrieved_at?: string | null;
  /** Ed25519 (base64url, no padding) by an agent key over the canonical commitment without this member (SPEC §12.3). */
  signature?: string;
}

/**
 * One well-formed line as read: the witness members null when not recorded; the signature kept
 * apart, with the bytes it signs (CommitmentSignature).
 */
export type ChainCommitment = Required<Omit<CommitmentDocument, 'signature'>>;

/**
 * Where a line is: its file as the user named it, its 1-based line number, the byte offset of the
 * line's start and the SHA-256 of its bytes (as a rejected submission line is located).
 */
export interface CommitmentSource {
  file: string;
  line: number;
  byte_offset: number;
  line_sha256: string;
  /**
   * The system that submitted the file through intake (inputs/commitments/<system_id>.jsonl, the
   * intake token dating it: SPEC §12.2); absent for the operator-collected file and outside a study.
   */
  intake_owner?: string;
  /** Who dated the file the line is in, and when (absent: nothing dated it, e.g. outside a study or before the seal). */
  witnessed?: CommitmentWitness;
}

/**
 * The independent date of a commitments file (a TSA token's genTime): the intake entry that took a
 * system's own file in, or the seal's anchor for the operator-collected file.
 */
export interface CommitmentWitness {
  /** Where the token is, e.g. `inputs/intake.jsonl:3` or `inputs/anchors/local.tsr`. */
  by: string;
  /** Its genTime (RFC 3339). */
  at: string;
}

/** How a commitment reached the study: a system's own file through intake, or the operator's collection. */
export type CommitmentRoute = 'intake' | 'operator';

/** The compared commitment's route and witness, as chain_checks records them. */
export interface CommitmentProvenance {
  route: CommitmentRoute;
  witnessed_by: string | null;
  witnessed_at: string | null;
}

/** A commitment's `signature` member and the bytes it must sign: the canonical commitment without its signature. */
export interface CommitmentSignature {
  /** Ed25519, base64url without padding, as the line gives it. */
  signature: string;
  /** Canonical JSON (SPEC §3) of the line's object without its `signature` member. */
  payload: string;
}

export interface MalformedCommitment extends CommitmentSource {
  /** The line's job_id when it has a usable one (the job it concerns), else null. */
  job_id: string | null;
  problems: string[];
}

/** One line of a commitments file, read: plain data, so it crosses to worker threads. */
export type CommitmentLine =
  | (CommitmentSource & {
      ok: true;
      commitment: ChainCommitment;
      signed?: CommitmentSignature;
      /** Who signed it, when decideSigners already verified the signature (never read from the file). */
      signer?: CommitmentSigner;
    })
  | (MalformedCommitment & { ok: false });

/** The draft's members, all required. */
const REQUIRED = ['job_id', 'final_entry_digest', 'entry_count', 'published_at'];
/** prereg's record of how the line was collected: optional (absent or null: not recorded), well-formed when given. */
const WITNESS = ['witness', 'retrieved_via', 'retrieved_at'];
/**
 * Optional: the owner's Ed25519 signature (base64url) over the canonical commitment without this
 * member (SPEC §12.3). Any non-empty string is read; whether it verifies is decided by the keys.
 */
const SIGNATURE = 'signature';
const MEMBERS = [...REQUIRED, ...WITNESS, SIGNATURE];

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
  check(
    'entry_count',
    () => count !== null && count >= 1n && count <= BigInt(Number.MAX_SAFE_INTEGER),
    'a positive JSON integer (5, not 5.0)',
  );
  check('published_at', isInstant, 'an RFC 3339 date-time with a real date (e.g. 2026-10-01T18:30:00Z)');
  check('witness', isNonEmptyString, 'a non-empty string');
  check('retrieved_via', isNonEmptyString, 'a non-empty string');
  check('retrieved_at', isInstant, 'an RFC 3339 date-time with a real date');
  check(SIGNATURE, isNonEmptyString, 'a non-empty string (Ed25519, base64url)');
  if (problems.length > 0) {
    const job = member(value, 'job_id');
    return { ...at, ok: false, job_id: isNonEmptyString(job) ? job : null, problems };
  }
  const v = value as Record<string, string | null | undefined>;
  const signature = member(value, SIGNATURE);
  return {
    ...at,
    ok: true,
    commitment: {
      job_id: v.job_id!,
      final_entry_digest: v.final_entry_digest!,
      entry_count: Number(count),
      published_at: v.published_at!,
      witness: v.witness ?? null,
      retrieved_via: v.retrieved_via ?? null,
      retrieved_at: v.retrieved_at ?? null,
    },
    ...(typeof signature === 'string'
      ? { signed: { signature, payload: canonicalJson(Object.fromEntries(Object.entries(value).filter(([k]) => k !== SIGNATURE))) } }
      : {}),
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

/** What a well-formed line's signature says, decided once with the registered agent keys. */
export type CommitmentSigner =
  /** No `signature` member. */
  | { kind: 'unsigned' }
  /** Verified by an agent key of this system. */
  | { kind: 'signed'; system_id: string }
  /** Verified by no registered agent key (COMMITMENT_SIGNATURE_INVALID): counted as unsigned. */
  | { kind: 'invalid' };

/** A well-formed line as indexed: where, what, and its signature if it has one (and its signer, once decided). */
export type IndexedCommitment = CommitmentSource & { commitment: ChainCommitment; signed?: CommitmentSignature; signer?: CommitmentSigner };

interface JobCommitments {
  /** Well-formed lines, in file order. */
  valid: IndexedCommitment[];
  malformed: MalformedCommitment[];
}

/** The study's registered agent keys (study.json systems[].agent_keys), decoded: whose each key is. */
export type AgentKeyring = ReadonlyArray<{ system_id: string; key: KeyObject }>;

export interface CommitmentIndex {
  jobs: ReadonlyMap<string, JobCommitments>;
  /** Malformed lines with no usable job_id: they concern no timeline in particular. */
  unattributed: readonly MalformedCommitment[];
  /**
   * Who signed a line of `jobs`, checked against every registered agent key the first time a
   * timeline of its job asks (so a line no timeline names costs no verification), then kept.
   */
  signerOf(line: IndexedCommitment): CommitmentSigner;
}

/**
 * Indexes the lines by job. A signed line's signature is checked against every registered agent
 * key (`keys`; none outside a study or without agent keys: every signature is then invalid),
 * once, when a timeline of its job is compared (signerOf).
 */
export function indexCommitments(lines: readonly CommitmentLine[], keys: AgentKeyring = []): CommitmentIndex {
  const jobs = new Map<string, JobCommitments>();
  const unattributed: MalformedCommitment[] = [];
  const of = (job: string) => {
    let j = jobs.get(job);
    if (!j) jobs.set(job, (j = { valid: [], malformed: [] }));
    return j;
  };
  for (const l of lines) {
    const at: CommitmentSource = {
      file: l.file,
      line: l.line,
      byte_offset: l.byte_offset,
      line_sha256: l.line_sha256,
      ...(l.intake_owner !== undefined ? { intake_owner: l.intake_owner } : {}),
      ...(l.witnessed !== undefined ? { witnessed: l.witnessed } : {}),
    };
    if (l.ok)
      of(l.commitment.job_id).valid.push({
        ...at,
        commitment: l.commitment,
        ...(l.signed !== undefined ? { signed: l.signed } : {}),
        ...(l.signer !== undefined ? { signer: l.signer } : {}),
      });
    else if (l.job_id !== null) of(l.job_id).malformed.push({ ...at, job_id: l.job_id, problems: l.problems });
    else unattributed.push({ ...at, job_id: null, problems: l.problems });
  }
  const signers = new WeakMap<IndexedCommitment, CommitmentSigner>();
  const signerOf = (line: IndexedCommitment): CommitmentSigner => {
    let signer = signers.get(line);
    if (signer === undefined) signers.set(line, (signer = line.signer ?? verifiedSigner(line.signed, keys)));
    return signer;
  };
  return { jobs, unattributed, signerOf };
}

/**
 * The lines with each signed one's signer decided (its signature checked against every registered
 * agent key, once): the verify stage decides them on its main thread, where it records whom each
 * line binds, and hands them to the timeline workers, which then check no signature again.
 */
export function decideSigners(lines: readonly CommitmentLine[], keys: AgentKeyring): CommitmentLine[] {
  return lines.map((l) =>
    l.ok && l.signed !== undefined && l.signer === undefined ? { ...l, signer: verifiedSigner(l.signed, keys) } : l,
  );
}

/** A commitment line and a system it binds (SPEC §12.3): received from it through intake, or signed by one of its agent keys. */
export interface CommitmentBinding {
  system_id: string;
  job_id: string;
  bound_by: 'intake' | 'signature';
  file: string;
  line: number;
}

/**
 * The systems one well-formed line binds (SPEC §12.3), and how: the system that submitted it
 * through intake, the system one of whose agent keys signed it. A line nobody's key signed and
 * that came through no intake binds nobody: anyone could have published it. The one rule both
 * COMMITMENT_CONFLICT (compareCommitments) and JOB_NOT_SUBMITTED (commitmentBindings) apply.
 */
function boundSystems(
  index: CommitmentIndex,
  line: IndexedCommitment,
): Array<{ system_id: string; bound_by: CommitmentBinding['bound_by'] }> {
  const signer = index.signerOf(line);
  return [
    ...(line.intake_owner !== undefined ? [{ system_id: line.intake_owner, bound_by: 'intake' as const }] : []),
    ...(signer.kind === 'signed' ? [{ system_id: signer.system_id, bound_by: 'signature' as const }] : []),
  ];
}

/**
 * Every system each well-formed line binds, in file order: what coverage needs to find a job
 * committed by its owner that none of the owner's records submits (JOB_NOT_SUBMITTED, SPEC §12.5),
 * so that nobody can make a system look as if it hid an attempt.
 */
export function commitmentBindings(index: CommitmentIndex): CommitmentBinding[] {
  const out: CommitmentBinding[] = [];
  for (const [job_id, job] of index.jobs) {
    for (const line of job.valid) {
      for (const b of boundSystems(index, line)) out.push({ ...b, job_id, file: line.file, line: line.line });
    }
  }
  return out;
}

function verifiedSigner(signed: CommitmentSignature | undefined, keys: AgentKeyring): CommitmentSigner {
  if (signed === undefined) return { kind: 'unsigned' };
  const data = Buffer.from(signed.payload, 'utf8');
  const by = keys.find((k) => verifySignedBytes(k.key, data, signed.signature));
  return by === undefined ? { kind: 'invalid' } : { kind: 'signed', system_id: by.system_id };
}

/** The comparison's checks, in the order a timeline records them after its own. */
export const COMMITMENT_CHECKS = [
  'commitment_found',
  'commitment_wellformed',
  'commitment_count',
  'commitment_final_digest',
  'commitment_timely',
  'commitment_time_plausible',
  'commitment_consistent',
] as const;
export type CommitmentCheck = (typeof COMMITMENT_CHECKS)[number];
type Outcome = 'pass' | 'fail' | 'skipped';

/**
 * The comparison's codes, as the timeline's catalogue lists them (timeline.ts): a failed check
 * leaves the timeline UNANCHORED; COMMITMENT_FOREIGN and COMMITMENT_SIGNATURE_INVALID have no
 * check and never change the status (SPEC §12.3).
 */
export const COMMITMENT_CODES = {
  COMMITMENT_MISSING: { check: 'commitment_found', status: 'UNANCHORED' },
  COMMITMENT_MALFORMED: { check: 'commitment_wellformed', status: 'UNANCHORED' },
  COMMITMENT_COUNT_MISMATCH: { check: 'commitment_count', status: 'UNANCHORED' },
  COMMITMENT_FINAL_DIGEST_MISMATCH: { check: 'commitment_final_digest', status: 'UNANCHORED' },
  COMMITMENT_LATE: { check: 'commitment_timely', status: 'UNANCHORED' },
  COMMITMENT_TIME_IMPLAUSIBLE: { check: 'commitment_time_plausible', status: 'UNANCHORED' },
  COMMITMENT_CONFLICT: { check: 'commitment_consistent', status: 'UNANCHORED' },
  COMMITMENT_FOREIGN: { check: null, status: null },
  COMMITMENT_SIGNATURE_INVALID: { check: null, status: null },
} as const;
/** Codes of the comparison that never change a timeline's status (SPEC §12.3). */
export type CommitmentInformationalCode = {
  [C in keyof typeof COMMITMENT_CODES]: (typeof COMMITMENT_CODES)[C]['status'] extends null ? C : never;
}[keyof typeof COMMITMENT_CODES];

export interface CommitmentComparison {
  checks: Record<CommitmentCheck, Outcome>;
  /** The well-formed commitment compared (the best candidate), or null when there was none. */
  commitment: ChainCommitment | null;
  /** How that commitment came in and who dated it; null when there was none. */
  provenance: CommitmentProvenance | null;
  /** COMMITMENT_FOREIGN, COMMITMENT_SIGNATURE_INVALID when they apply, sorted: listed, never changing the status. */
  informational: CommitmentInformationalCode[];
  problems: string[];
}

/** Problems listed per informational code before the rest are counted only. */
const LISTED = 5;

/**
 * Compares a timeline (its entry 1's job id, its length and its recomputed final digest) with the
 * job's commitments. The best well-formed candidate decides: the one matching everything, else
 * the final digest, else the count, else published in time; ties go to the first in file order.
 * A malformed line of the job is COMMITMENT_MALFORMED unless a well-formed one anchors the
 * timeline (it then changes nothing, and is still listed in the problems). So a matching
 * commitment published before closes_at anchors the timeline whoever published it (as
 * draft-zambo-aer1-09 writes commitments: with no publisher).
 *
 * `owner` is the system whose record submitted the timeline (null outside a study). A commitment
 * binds it when one of its agent keys signed it, or when it came from its own intake file
 * (inputs/commitments/<owner>.jsonl). Decision: the commitments that count for the timeline are
 * the owner's own published before closes_at, and the matching one that anchors it; when they name
 * more than one (final digest, count), the timeline is COMMITMENT_CONFLICT and anchored by none:
 * an owner who committed to a full and to a cut timeline could choose after the fact which one to
 * submit, which is what a commitment exists to prevent. A commitment that does not bind the owner
 * and names another final digest or count is COMMITMENT_FOREIGN: anyone can publish one, so it
 * cancels nothing (SPEC §12.3) — unless it is the best candidate of a timeline nothing matches,
 * whose mismatch codes then say how it differs, as before. With no agent keys registered and no intake files, nothing binds
 * an owner, and no commitment can conflict.
 */
export function compareCommitments(
  index: CommitmentIndex,
  jobId: string,
  entryCount: number,
  finalDigest: string | null,
  window: CommitmentWindow,
  owner: string | null = null,
): CommitmentComparison {
  const checks: Record<CommitmentCheck, Outcome> = {
    commitment_found: 'skipped',
    commitment_wellformed: 'skipped',
    commitment_count: 'skipped',
    commitment_final_digest: 'skipped',
    commitment_timely: 'skipped',
    commitment_time_plausible: 'skipped',
    commitment_consistent: 'skipped',
  };
  const problems: string[] = [];
  const job = index.jobs.get(jobId);
  const malformed = job?.malformed ?? [];
  for (const m of malformed) problems.push(`${m.file}:${m.line}: malformed commitment for this job: ${m.problems.join('; ')}`);
  if (!job) {
    checks.commitment_found = 'fail';
    problems.push(`no commitment for job_id ${JSON.stringify(jobId)}`);
    return { checks, commitment: null, provenance: null, informational: [], problems };
  }
  checks.commitment_found = 'pass';
  const timely = (c: ChainCommitment) => compareInstants(parseRfc3339(c.published_at)!, window.closes_at) < 0;
  const plausible = (v: IndexedCommitment) => implausibleTime(v, window.opens_at) === null;
  const matches = (c: ChainCommitment) => finalDigest !== null && c.final_entry_digest === finalDigest && c.entry_count === entryCount;
  const binds = (v: IndexedCommitment) => owner !== null && boundSystems(index, v).some((b) => b.system_id === owner);
  let best: IndexedCommitment | null = null;
  let rank = -1;
  for (const v of job.valid) {
    const c = v.commitment;
    // A plausibly dated one before an implausible one: nobody's backdated copy hides a good commitment.
    const r =
      (finalDigest !== null && c.final_entry_digest === finalDigest ? 8 : 0) +
      (c.entry_count === entryCount ? 4 : 0) +
      (timely(c) ? 2 : 0) +
      (plausible(v) ? 1 : 0);
    if (r > rank) [rank, best] = [r, v];
  }

  // Informational: what cannot cancel, listed (SPEC §12.3).
  const informational: CommitmentInformationalCode[] = [];
  const listed = (code: CommitmentInformationalCode, found: IndexedCommitment[], say: (v: IndexedCommitment) => string) => {
    if (found.length === 0) return;
    informational.push(code);
    for (const v of found.slice(0, LISTED)) problems.push(`${code} ${v.file}:${v.line}: ${say(v)}`);
    if (found.length > LISTED) problems.push(`${code}: ${found.length - LISTED} more not listed`);
  };
  // The best candidate is not listed: when nothing matches, its mismatch codes say how it differs (SPEC §5.2).
  listed(
    'COMMITMENT_FOREIGN',
    job.valid.filter((v) => v !== best && !binds(v) && !matches(v.commitment)),
    (v) =>
      `commits job ${JSON.stringify(jobId)} to ${v.commitment.final_entry_digest} / ${v.commitment.entry_count} entries, and binds nothing of its owner${owner === null ? '' : ` ${JSON.stringify(owner)}`} (${signedBy(index.signerOf(v))}): it cancels nothing`,
  );
  listed(
    'COMMITMENT_SIGNATURE_INVALID',
    job.valid.filter((v) => index.signerOf(v).kind === 'invalid'),
    () => 'its signature verifies with no registered agent key (over the canonical commitment without its signature): read as unsigned',
  );

  if (best === null) {
    checks.commitment_wellformed = 'fail';
    return { checks, commitment: null, provenance: null, informational, problems };
  }
  const committed = new Map<string, string[]>();
  const count = (v: IndexedCommitment) => {
    const key = `${v.commitment.final_entry_digest} / ${v.commitment.entry_count} entries`;
    committed.set(key, [...(committed.get(key) ?? []), `${v.file}:${v.line}`]);
  };
  for (const v of job.valid) if (timely(v.commitment) && binds(v)) count(v);
  if (matches(best.commitment) && timely(best.commitment) && !binds(best)) count(best);
  checks.commitment_consistent = committed.size > 1 ? 'fail' : 'pass';
  if (committed.size > 1) {
    problems.push(
      `job ${JSON.stringify(jobId)} was committed ${committed.size} ways before closes_at, by its owner ${JSON.stringify(owner)} or matching the timeline: ${[...committed].map(([k, at]) => `${k} (${at.join(', ')})`).join('; ')}`,
    );
  }
  const c = best.commitment;
  const countFailed = c.entry_count !== entryCount;
  const digestFailed = finalDigest !== null && c.final_entry_digest !== finalDigest;
  const late = !timely(c);
  // Judged only for a commitment published before closes_at: a late one is COMMITMENT_LATE already.
  const implausible = late ? null : implausibleTime(best, window.opens_at);
  checks.commitment_count = countFailed ? 'fail' : 'pass';
  checks.commitment_final_digest = digestFailed ? 'fail' : finalDigest === null ? 'skipped' : 'pass';
  checks.commitment_timely = late ? 'fail' : 'pass';
  checks.commitment_time_plausible = late ? 'skipped' : implausible !== null ? 'fail' : 'pass';
  const anchored = !countFailed && !late && implausible === null && finalDigest !== null && !digestFailed && committed.size <= 1;
  checks.commitment_wellformed = malformed.length > 0 && !anchored ? 'fail' : 'pass';
  const where = `${best.file}:${best.line}`;
  if (countFailed) problems.push(`the timeline has ${entryCount} entries, its commitment (${where}) says ${c.entry_count}`);
  if (digestFailed)
    problems.push(`the recomputed final entry digest ${finalDigest} differs from the committed ${c.final_entry_digest} (${where})`);
  if (late) problems.push(`the commitment (${where}) was published at ${c.published_at}, not before closes_at`);
  if (implausible !== null) problems.push(`COMMITMENT_TIME_IMPLAUSIBLE ${where}: ${implausible}`);
  const provenance: CommitmentProvenance = {
    route: best.intake_owner !== undefined ? 'intake' : 'operator',
    witnessed_by: best.witnessed?.by ?? null,
    witnessed_at: best.witnessed?.at ?? null,
  };
  return { checks, commitment: c, provenance, informational, problems };
}

/** The window a commitment's published_at must lie in: opens_at (null: unbounded) ≤ published_at < closes_at. */
export interface CommitmentWindow {
  opens_at: Rfc3339Instant | null;
  closes_at: Rfc3339Instant;
}

/**
 * Why a commitment's claimed time cannot be true, or null when it can: published_at before
 * opens_at, after the witnessed date of its file (nobody publishes after the witness already held
 * it), or after its own retrieved_at (nobody retrieves what is not yet published). closes_at is
 * COMMITMENT_LATE's, judged apart.
 */
function implausibleTime(v: IndexedCommitment, opensAt: Rfc3339Instant | null): string | null {
  const c = v.commitment;
  const published = parseRfc3339(c.published_at)!;
  if (opensAt !== null && compareInstants(published, opensAt) < 0)
    return `published_at ${c.published_at} is before the study's opens_at (the window had not opened)`;
  const witnessed = v.witnessed !== undefined ? parseRfc3339(v.witnessed.at) : null;
  if (witnessed !== null && compareInstants(published, witnessed) > 0)
    return `published_at ${c.published_at} is after ${v.witnessed!.at}, when its witness (${v.witnessed!.by}) already dated the file holding it`;
  if (c.retrieved_at !== null && compareInstants(parseRfc3339(c.retrieved_at)!, published) < 0)
    return `retrieved_at ${c.retrieved_at} is before published_at ${c.published_at}`;
  return null;
}

function signedBy(signer: CommitmentSigner): string {
  return signer.kind === 'signed'
    ? `signed by ${JSON.stringify(signer.system_id)}'s agent key`
    : 'not signed by its agent key nor received from it through intake';
}

function isInstant(v: unknown): boolean {
  return typeof v === 'string' && parseRfc3339(v) !== null;
}
