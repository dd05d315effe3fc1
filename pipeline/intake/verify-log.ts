// The intake rail's checks (SPEC §12.2), for the audit and for `intake --verify-receipt`:
//
//   verifyIntakeLog(layout, options) — the log's chain; each request's signature by its system's
//     frozen agent key, under the study's freeze, and the successor of the one before it of its
//     system and kind (INTAKE_REQUEST_STALE: versions only grow, each naming the one it supersedes); each entry's RFC 3161 token (imprint = the entry
//     digest, chain to the GIVEN roots, genTime < closes_at else INTAKE_LATE); the seal: its log
//     root, head and size recomputed, its files the latest entries' (plus the operator-collected
//     inputs/commitments.jsonl), its anchors (imprint = seal_digest, the given roots, genTime in
//     [closes_at, closes_at + seal_within_s]: SEAL_EARLY / SEAL_LATE); and every input file equal
//     to its sealed leaf (INTAKE_DRIFT).
//   checkReceipts(receipts, seal, options) — each participant receipt: signed by the intake key it
//     names, that key the operator's identity or certified by it (identity.ts); under a freeze the
//     audited chain accounts for (INTAKE_RECEIPT_EQUIVOCATION otherwise); its token, and its
//     entry's RFC 6962 audit path to the seal's root (INTAKE_RECEIPT_NOT_SEALED), or a later entry
//     of the same owner and kind (INTAKE_RECEIPT_SUPERSEDED, informational).
//
// Which findings fail is read from the two catalogues below, never from a code's name.
//
// Trust is the caller's: the TSA roots and the intake key are parameters, never read from the
// study inside these functions. Findings are listed, never thrown (a bug still throws).
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { agentPublicKey } from '../evidence/intake/ed25519.ts';
import { latestEntries, type ParsedLog } from '../evidence/intake/log.ts';
import {
  entryDigest,
  entryProblems,
  entryTimeFinding,
  GENESIS_PREV,
  INTAKE_RECEIPT_FORMAT,
  logAuditPath,
  logRoot,
  sealDigest,
  sealProblems,
  storedPath,
  verifyLogInclusion,
  type IntakeEntry,
  type IntakeReceipt,
  type SealedFile,
  type SealRecord,
} from '../evidence/intake/records.ts';
import { chainProblems } from '../evidence/intake/request-chain.ts';
import { requestRefusal, type AgentKeyRegistry } from '../evidence/intake/requests.ts';
import { verifyTimestampToken, type TsaTrust } from '../evidence/timestamp/index.ts';
import { checkCatalogue, isCodeOf, statusOf, type CodeOf } from '../evidence/check-catalogue.ts';
import { isRecord } from '../formats/canonical-json.ts';
import { sha256Hex } from '../formats/hash.ts';
import { utcMillis } from '../formats/utc-instant.ts';
import { readJsonFile } from '../io/json-files.ts';
import { readRegularFile } from '../io/regular-file.ts';
import type { StudyLayout } from '../layout.ts';
import { preconditionOf } from '../study/preconditions.ts';
import type { ReasonCode } from '../reasons.ts';
import type { IntakeSettings } from '../study/study.ts';
import { CappedFindings } from './capped-findings.ts';
import { currentInputFiles, fileDrift } from './files.ts';
import { readIntakeLogFile } from './log.ts';
import { SEAL_ANCHOR_FORMAT, type SealAnchorMetadata } from './seal-anchors.ts';
import { receiptSignerFinding } from './identity.ts';

/**
 * The log's and the seal's codes (verifyIntakeLog): every one FAILING, the intake does not hold.
 * A file that cannot be read is reported with its refusal's own code (FILE_NOT_FOUND,
 * JSON_SYNTAX…), which this catalogue does not list: it fails too (failsIntake).
 */
export const INTAKE_LOG_CATALOGUE = checkCatalogue(['chain', 'request', 'token', 'entry_time', 'seal', 'seal_time', 'files'], ['FAILING'], {
  INTAKE_LOG_INVALID: { check: 'chain', status: 'FAILING' },
  // requestRefusal's codes: the entry's request is not its system's, for this study and freeze.
  INTAKE_REQUEST_INVALID: { check: 'request', status: 'FAILING' },
  INTAKE_FREEZE_MISMATCH: { check: 'request', status: 'FAILING' },
  INTAKE_SIGNATURE_INVALID: { check: 'request', status: 'FAILING' },
  INTAKE_REQUEST_STALE: { check: 'request', status: 'FAILING' },
  INTAKE_TOKEN_INVALID: { check: 'token', status: 'FAILING' },
  INTAKE_LATE: { check: 'entry_time', status: 'FAILING' },
  INTAKE_EARLY: { check: 'entry_time', status: 'FAILING' },
  SEAL_MISSING: { check: 'seal', status: 'FAILING' },
  SEAL_INVALID: { check: 'seal', status: 'FAILING' },
  SEAL_FREEZE_MISMATCH: { check: 'seal', status: 'FAILING' },
  SEAL_EARLY: { check: 'seal_time', status: 'FAILING' },
  SEAL_LATE: { check: 'seal_time', status: 'FAILING' },
  INTAKE_DRIFT: { check: 'files', status: 'FAILING' },
});

/**
 * A participant's receipt's codes (checkReceipts), first match wins. AGAINST_OPERATOR: only the
 * operator could have caused it (it signed for an entry the seal left out, or published a log the
 * seal does not close): the audit's intake rail fails. PROVES_NOTHING (against the operator): the
 * receipt does not verify, which anyone could arrange to get a study declared invalid: the
 * participant's own check fails, the audit lists it as a note. null: informational, the receipt
 * holds (a later entry supersedes it). Separate from the log's: the same INTAKE_TOKEN_INVALID is
 * the operator's failure in its log and proves nothing in a receipt.
 */
export const INTAKE_RECEIPT_CATALOGUE = checkCatalogue(
  ['signature', 'freeze', 'token', 'log', 'sealed', 'latest'],
  ['AGAINST_OPERATOR', 'PROVES_NOTHING'],
  {
    // The receipt as a whole: its shape, its entry_digest, its study and freeze.
    INTAKE_RECEIPT_INVALID: { check: null, status: 'PROVES_NOTHING' },
    INTAKE_RECEIPT_SIGNATURE_INVALID: { check: 'signature', status: 'PROVES_NOTHING' },
    // The key is not the operator's identity, nor certified by it: anyone could have made it.
    INTAKE_KEY_UNCERTIFIED: { check: 'signature', status: 'PROVES_NOTHING' },
    // The operator's own receipt under a freeze the audited chain does not account for (SPEC §13.4).
    INTAKE_RECEIPT_EQUIVOCATION: { check: 'freeze', status: 'AGAINST_OPERATOR' },
    INTAKE_TOKEN_INVALID: { check: 'token', status: 'PROVES_NOTHING' },
    // The log given is not the one the seal closes: no audit path can be computed.
    SEAL_INVALID: { check: 'log', status: 'AGAINST_OPERATOR' },
    INTAKE_RECEIPT_NOT_SEALED: { check: 'sealed', status: 'AGAINST_OPERATOR' },
    INTAKE_RECEIPT_SUPERSEDED: { check: 'latest', status: null },
  },
);
export type IntakeReceiptCode = CodeOf<typeof INTAKE_RECEIPT_CATALOGUE>;

/** A finding of the log's fails the intake unless the catalogue calls its code informational (none is); a file's refusal (not listed) always fails. */
export function failsIntake(code: ReasonCode): boolean {
  return !isCodeOf(INTAKE_LOG_CATALOGUE, code) || statusOf(INTAKE_LOG_CATALOGUE, code) !== null;
}

export interface IntakeFinding<Code extends ReasonCode = ReasonCode> {
  code: Code;
  /** From the study root (or the receipt's path as given). */
  file: string;
  line?: number;
  message: string;
}

export interface IntakeVerificationOptions {
  /** The auditor's TSA roots: every entry token and seal anchor must chain to one of them. */
  tsaTrust: TsaTrust;
  /** The frozen registration: study_id and each system's agent_keys. */
  agentKeys: AgentKeyRegistry;
  /** The frozen study's window and intake settings (intakeOf). */
  study: { window: { opens_at: string; closes_at: string }; intake: IntakeSettings };
  /** The freeze in force (the digest every request and the seal must name). */
  freezeDigest: string;
}

export interface SealAnchorCheck {
  witness: string;
  file: string;
  gen_time: string | null;
  reason_codes: ReasonCode[];
}

export interface IntakeLogVerification {
  /** No finding other than informational ones. */
  ok: boolean;
  /** The first MAX_LISTED_FINDINGS findings (intake/capped-findings.ts). */
  findings: IntakeFinding[];
  /** Findings counted and not listed. */
  findings_omitted: number;
  entries: IntakeEntry[];
  /** entryDigest of each entry: the log's leaves. */
  digests: string[];
  seal: SealRecord | null;
  /** The seal's files (empty without a seal). */
  sealedFiles: SealedFile[];
  sealAnchors: SealAnchorCheck[];
  /** Files whose latest entry is their owner's signed request: which system submitted each, and its kind. */
  ownerFiles: Array<{ path: string; system_id: string; kind: IntakeEntry['request']['kind'] }>;
  /** Every entry token and seal anchor that verified, with the root it chained to (the audit's trust rail). */
  tokenRoots: TokenRoot[];
}

export interface TokenRoot {
  kind: 'entry' | 'seal';
  file: string;
  line?: number;
  root_sha256: string;
}

const LOG = 'inputs/intake.jsonl';
/** Where a check files its findings (a CappedFindings). */
type FindingSink = { push(...findings: IntakeFinding[]): void };
const SEAL = 'inputs/seal.json';

export async function verifyIntakeLog(layout: StudyLayout, options: IntakeVerificationOptions): Promise<IntakeLogVerification> {
  const findings = new CappedFindings<IntakeFinding>((f) => failsIntake(f.code));
  const tokenRoots: TokenRoot[] = [];

  // --- the log: chain, signatures, tokens -----------------------------------------------------
  // Streamed up to its first bad line (intake/log.ts): the entries before it are still checked.
  let log: ParsedLog = { entries: [], digests: [], problem: null };
  try {
    log = await readIntakeLogFile(layout.intakeLog, LOG);
  } catch (err) {
    findings.push(fromError(err, LOG));
  }
  if (log.problem) findings.push({ code: 'INTAKE_LOG_INVALID', file: LOG, line: log.problem.line, message: log.problem.message });
  for (const [i, entry] of log.entries.entries()) {
    const line = i + 1;
    const refusal = requestRefusal(entry.request, options.agentKeys, options.freezeDigest);
    if (refusal) findings.push({ code: refusal.code, file: LOG, line, message: `entry ${entry.seq}: ${refusal.message}` });
    const token = await verifyTimestampToken(Buffer.from(entry.token, 'base64'), Buffer.from(log.digests[i]!, 'hex'), options.tsaTrust);
    if (token.ok) tokenRoots.push({ kind: 'entry', file: LOG, line, root_sha256: token.rootSha256! });
    if (!token.ok)
      findings.push({
        code: 'INTAKE_TOKEN_INVALID',
        file: LOG,
        line,
        message: `entry ${entry.seq}: its token does not witness the entry digest ${log.digests[i]} under the given roots (${token.reason_codes.join(', ')})`,
      });
    else {
      const outside = entryTimeFinding(token.genTime!, options.study.window);
      if (outside) findings.push({ code: outside.code, file: LOG, line, message: `entry ${entry.seq} is ${outside.problem}` });
    }
  }
  for (const [i, problem] of chainProblems(log.entries))
    findings.push({ code: 'INTAKE_REQUEST_STALE', file: LOG, line: i + 1, message: `entry ${log.entries[i]!.seq}: ${problem}` });
  const latest = latestEntries(log.entries);
  const expected: SealedFile[] = latest.map((e) => ({
    path: storedPath(e.request.kind, e.request.system_id),
    bytes: e.request.bytes,
    sha256: e.request.sha256,
  }));
  const ownerFiles = latest.map((e) => ({
    path: storedPath(e.request.kind, e.request.system_id),
    system_id: e.request.system_id,
    kind: e.request.kind,
  }));

  // --- the seal -------------------------------------------------------------------------------
  let seal: SealRecord | null = null;
  const sealAnchors: SealAnchorCheck[] = [];
  if (!lstatSync(layout.seal, { throwIfNoEntry: false })) {
    if (options.study.intake.mode === 'sealed')
      findings.push({ code: 'SEAL_MISSING', file: SEAL, message: 'the study declares sealed intake and inputs/seal.json does not exist' });
    // Unsealed: each file received through intake must still be the one its latest entry names.
    const now = safeCurrentFiles(layout, findings);
    for (const e of expected) {
      const c = now.find((f) => f.path === e.path);
      if (!c || c.sha256 !== e.sha256 || c.bytes !== e.bytes)
        findings.push({
          code: 'INTAKE_DRIFT',
          file: e.path,
          message: `${e.path} is not the file its latest intake entry received (${e.bytes} bytes, SHA-256 ${e.sha256})`,
        });
    }
  } else {
    let value: unknown;
    try {
      value = readJsonFile(layout.seal);
    } catch (err) {
      findings.push(fromError(err, SEAL));
    }
    const problems = value === undefined ? ['unreadable'] : sealProblems(value);
    if (value !== undefined && problems.length > 0) findings.push({ code: 'SEAL_INVALID', file: SEAL, message: problems.join('; ') });
    if (problems.length === 0) {
      seal = value as SealRecord;
      findings.push(...sealFindings(seal, log.digests, expected, options));
      sealAnchors.push(...(await verifySealAnchors(layout, seal, options, findings, tokenRoots)));
      for (const d of fileDrift(seal.files, safeCurrentFiles(layout, findings)))
        findings.push({ code: 'INTAKE_DRIFT', file: d.file, message: d.message });
    }
  }
  return {
    ok: !findings.failing,
    findings: findings.listed,
    findings_omitted: findings.omitted,
    entries: log.entries,
    digests: log.digests,
    seal,
    sealedFiles: seal?.files ?? [],
    sealAnchors,
    ownerFiles,
    tokenRoots,
  };
}

function sealFindings(
  seal: SealRecord,
  digests: readonly string[],
  expected: readonly SealedFile[],
  options: IntakeVerificationOptions,
): IntakeFinding[] {
  const out: IntakeFinding[] = [];
  const bad = (message: string) => out.push({ code: 'SEAL_INVALID', file: SEAL, message });
  if (seal.freeze_digest !== options.freezeDigest)
    out.push({
      code: 'SEAL_FREEZE_MISMATCH',
      file: SEAL,
      message: `the seal names freeze ${seal.freeze_digest}; the study's is ${options.freezeDigest}`,
    });
  if (seal.study_id !== options.agentKeys.study_id)
    bad(`study_id is ${JSON.stringify(seal.study_id)}, not ${JSON.stringify(options.agentKeys.study_id)}`);
  if (seal.closes_at !== options.study.window.closes_at)
    bad(`closes_at is ${seal.closes_at}; the study's is ${options.study.window.closes_at}`);
  const root = logRoot(digests);
  const head = digests[digests.length - 1] ?? GENESIS_PREV;
  if (seal.log.entries !== digests.length || seal.log.root !== root || seal.log.head !== head) {
    bad(
      `the seal's log (${seal.log.entries} entries, root ${seal.log.root}, head ${seal.log.head}) is not inputs/intake.jsonl's (${digests.length} entries, root ${root}, head ${head})`,
    );
  }
  const sealed = new Map(seal.files.map((f) => [f.path, f]));
  for (const e of expected) {
    const s = sealed.get(e.path);
    if (!s || s.sha256 !== e.sha256 || s.bytes !== e.bytes)
      bad(`the seal's ${e.path} is not the file of its latest intake entry (${e.bytes} bytes, SHA-256 ${e.sha256})`);
    sealed.delete(e.path);
  }
  for (const path of sealed.keys()) if (path !== 'inputs/commitments.jsonl') bad(`the seal lists ${path}, which no intake entry received`);
  return out;
}

async function verifySealAnchors(
  layout: StudyLayout,
  seal: SealRecord,
  options: IntakeVerificationOptions,
  findings: FindingSink,
  tokenRoots: TokenRoot[],
): Promise<SealAnchorCheck[]> {
  const digest = sealDigest(seal);
  const closes = utcMillis(seal.closes_at) ?? utcMillis(options.study.window.closes_at)!;
  const until = closes + options.study.intake.seal_within_s * 1000;
  const names = lstatSync(layout.sealAnchors, { throwIfNoEntry: false })
    ? readdirSync(layout.sealAnchors)
        .filter((n) => n.endsWith('.tsr'))
        .sort()
    : [];
  const checks: SealAnchorCheck[] = [];
  for (const name of names) {
    const file = `inputs/anchors/${name}`;
    const witness = name.slice(0, -'.tsr'.length);
    const codes: ReasonCode[] = [];
    let genTime: string | null = null;
    try {
      const tsr = readRegularFile(join(layout.sealAnchors, name));
      const result = await verifyTimestampToken(tsr, Buffer.from(digest, 'hex'), options.tsaTrust);
      genTime = result.genTime ?? null;
      if (result.ok) tokenRoots.push({ kind: 'seal', file, root_sha256: result.rootSha256! });
      if (!result.ok) {
        codes.push('SEAL_INVALID', ...result.reason_codes);
        findings.push({
          code: 'SEAL_INVALID',
          file,
          message: `does not witness seal_digest ${digest} under the given roots (${result.reason_codes.join(', ')})`,
        });
      } else {
        const at = utcMillis(result.genTime!)!;
        if (at < closes) {
          codes.push('SEAL_EARLY');
          findings.push({ code: 'SEAL_EARLY', file, message: `dated ${result.genTime}, before closes_at ${seal.closes_at}` });
        } else if (at > until) {
          codes.push('SEAL_LATE');
          findings.push({
            code: 'SEAL_LATE',
            file,
            message: `dated ${result.genTime}, after closes_at + seal_within_s (${new Date(until).toISOString()})`,
          });
        }
      }
      const meta = readJsonFile(join(layout.sealAnchors, `${witness}.json`)) as Partial<SealAnchorMetadata>;
      if (
        meta.format !== SEAL_ANCHOR_FORMAT ||
        meta.seal_digest !== digest ||
        meta.tsr_sha256 !== sha256Hex(tsr) ||
        meta.witness !== witness
      ) {
        codes.push('SEAL_INVALID');
        findings.push({
          code: 'SEAL_INVALID',
          file: `inputs/anchors/${witness}.json`,
          message: `its metadata does not describe ${name} over seal_digest ${digest}`,
        });
      }
    } catch (err) {
      const f = fromError(err, file);
      codes.push(f.code);
      findings.push(f);
    }
    checks.push({ witness, file, gen_time: genTime, reason_codes: codes });
  }
  if (!checks.some((c) => c.reason_codes.length === 0))
    findings.push({
      code: 'SEAL_INVALID',
      file: 'inputs/anchors/',
      message: `no anchor witnesses seal_digest ${digest} within [closes_at, closes_at + seal_within_s]`,
    });
  return checks;
}

function safeCurrentFiles(layout: StudyLayout, findings: FindingSink): SealedFile[] {
  try {
    return currentInputFiles(layout);
  } catch (err) {
    findings.push(fromError(err, 'inputs/'));
    return [];
  }
}

function fromError(err: unknown, file: string): IntakeFinding {
  const { code, message } = preconditionOf(err);
  return { code, file, message };
}

// --- receipts ----------------------------------------------------------------------------------

export interface ReceiptCheck {
  file: string;
  seq: number | null;
  entry_digest: string | null;
  /** The entry is a leaf of the sealed log (its audit path reaches the seal's root). */
  sealed: boolean;
  findings: Array<IntakeFinding<IntakeReceiptCode>>;
}

export interface ReceiptCheckOptions {
  /** The operator's identity key: each receipt's intake key must be it or certified by it. */
  identity: KeyObject;
  /** The freeze digests the audited freeze chain accounts for (a receipt under another is equivocation). */
  accountedFreezes: ReadonlySet<string>;
  /** The TSA roots the entry token must chain to; absent: the token is not checked. */
  tsaTrust?: TsaTrust;
  /** The published log: its entries and their digests (the audit paths are computed from them). */
  log: { entries: readonly IntakeEntry[]; digests: readonly string[] };
}

export async function checkReceipts(
  receipts: ReadonlyArray<{ file: string; value: unknown }>,
  seal: SealRecord,
  options: ReceiptCheckOptions,
): Promise<ReceiptCheck[]> {
  const out: ReceiptCheck[] = [];
  const logIsSealed = options.log.digests.length === seal.log.entries && logRoot(options.log.digests) === seal.log.root;
  for (const { file, value } of receipts) {
    const findings: Array<IntakeFinding<IntakeReceiptCode>> = [];
    const result: ReceiptCheck = { file, seq: null, entry_digest: null, sealed: false, findings };
    out.push(result);
    const problems = !isRecord(value)
      ? ['a receipt is a JSON object']
      : [
          ...(value.format === INTAKE_RECEIPT_FORMAT ? [] : [`format must be ${JSON.stringify(INTAKE_RECEIPT_FORMAT)}`]),
          ...(typeof value.intake_key === 'string' && agentPublicKey(value.intake_key)
            ? []
            : ['intake_key must be an ed25519:<base64url> public key']),
          ...entryProblems(value.entry).map((p) => `entry: ${p}`),
        ];
    if (problems.length > 0) {
      findings.push({ code: 'INTAKE_RECEIPT_INVALID', file, message: problems.join('; ') });
      continue;
    }
    const receipt = value as unknown as IntakeReceipt;
    const digest = entryDigest(receipt.entry);
    result.seq = receipt.entry.seq;
    result.entry_digest = digest;
    if (receipt.entry_digest !== digest) {
      findings.push({
        code: 'INTAKE_RECEIPT_INVALID',
        file,
        message: `entry_digest is ${String(receipt.entry_digest)}; the entry's digest is ${digest}`,
      });
      continue;
    }
    const signer = receiptSignerFinding(receipt, options.identity);
    if (signer) {
      findings.push({ file, ...signer });
      continue;
    }
    if (receipt.study_id === seal.study_id && !options.accountedFreezes.has(receipt.freeze_digest)) {
      findings.push({
        code: 'INTAKE_RECEIPT_EQUIVOCATION',
        file,
        message: `the operator signed this receipt for ${receipt.entry.request.system_id}'s entry ${receipt.entry.seq} of ${seal.study_id} under freeze ${receipt.freeze_digest}, which the audited freeze chain (${[...options.accountedFreezes].join(', ')}) does not account for: two freezes of one study that are not one amendment chain`,
      });
      continue;
    }
    // A receipt under an earlier freeze of the chain is the operator's for this study all the same:
    // its entry must be in the sealed log (or the operator acknowledged a file and dropped it).
    if (receipt.study_id !== seal.study_id) {
      findings.push({
        code: 'INTAKE_RECEIPT_INVALID',
        file,
        message: `the receipt is for ${receipt.study_id} under freeze ${receipt.freeze_digest}; the seal is ${seal.study_id}'s under ${seal.freeze_digest}`,
      });
      continue;
    }
    if (options.tsaTrust) {
      const token = await verifyTimestampToken(Buffer.from(receipt.entry.token, 'base64'), Buffer.from(digest, 'hex'), options.tsaTrust);
      if (!token.ok)
        findings.push({
          code: 'INTAKE_TOKEN_INVALID',
          file,
          message: `the entry's token does not witness ${digest} (${token.reason_codes.join(', ')})`,
        });
    }
    if (!logIsSealed) {
      findings.push({
        code: 'SEAL_INVALID',
        file: SEAL,
        message: 'the log given is not the one the seal closes (size or root differ): no audit path can be computed',
      });
      continue;
    }
    const seq = receipt.entry.seq;
    const path = seq < options.log.digests.length ? logAuditPath(options.log.digests, seq) : [];
    result.sealed = seq < seal.log.entries && verifyLogInclusion(digest, seq, seal.log.entries, path, seal.log.root);
    if (!result.sealed) {
      findings.push({
        code: 'INTAKE_RECEIPT_NOT_SEALED',
        file,
        message: `entry ${seq} (${digest}) of ${receipt.entry.request.system_id} is not in the sealed log (root ${seal.log.root}, ${seal.log.entries} entries): the operator acknowledged it and left it out`,
      });
      continue;
    }
    const later = options.log.entries.find(
      (e) => e.seq > seq && e.request.system_id === receipt.entry.request.system_id && e.request.kind === receipt.entry.request.kind,
    );
    if (later)
      findings.push({
        code: 'INTAKE_RECEIPT_SUPERSEDED',
        file,
        message: `entry ${later.seq} of the same system and kind supersedes it (the later file counts)`,
      });
  }
  return out;
}

/** The findings that fail the participant's check of its receipt: all but the informational ones (a later entry supersedes it). */
export function receiptFailures(c: ReceiptCheck): Array<IntakeFinding<IntakeReceiptCode>> {
  return c.findings.filter((f) => statusOf(INTAKE_RECEIPT_CATALOGUE, f.code) !== null);
}

/** Whether a receipt's finding is against the operator (it fails the audit's intake rail) or proves nothing against it (a note). */
export function againstOperator(f: IntakeFinding<IntakeReceiptCode>): boolean {
  return statusOf(INTAKE_RECEIPT_CATALOGUE, f.code) === 'AGAINST_OPERATOR';
}
