// `prereg intake REQUEST --operator-key K` (SPEC §12.2): the operator receives one signed file
// during the window. Checks the request (its system's frozen agent key, the freeze in force, the
// file's SHA-256 and size), runs the line checks (intake/line-checks.ts), gets an RFC 3161 token
// over the new entry's digest and appends the entry to inputs/intake.jsonl; stores the file as
// inputs/<kind>/<system_id>.jsonl and writes the participant's receipt. All three files are
// written beside their places first and renamed into place only once everything succeeded:
// a refusal writes nothing. Holds the study lock.
//
// `prereg intake --verify-receipt R --seal inputs/seal.json`: a participant checks its receipt.
import { lineProtocolOf } from '../study/study.ts';
import { shown } from '../text/display.ts';
import { lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sameKey, signCanonical } from '../evidence/intake/ed25519.ts';
import {
  entryDigest,
  entryTimeFinding,
  GENESIS_PREV,
  INTAKE_RECEIPT_FORMAT,
  INTAKE_REQUEST_FORMAT,
  receiptPayload,
  requestProblems,
  storedPath,
  type IntakeEntry,
  type IntakeReceipt,
  type IntakeRequest,
} from '../evidence/intake/records.ts';
import { lastRequestOf, successorProblem } from '../evidence/intake/request-chain.ts';
import { requestRefusal } from '../evidence/intake/requests.ts';
import { loadTsaTrust } from '../evidence/timestamp/index.ts';
import { sha256Hex } from '../formats/hash.ts';
import { studyMaxLineBytes } from '../ingest/scan.ts';
import { loadSeal } from '../intake/files.ts';
import { readEd25519PrivateKey, readEd25519PublicKey } from '../intake/keys.ts';
import { accountedFreezeDigests, pinnedReceiptSigner } from '../intake/identity.ts';
import { readFreezeChain } from '../study/freeze-chain.ts';
import { checkIntakeLines } from '../intake/line-checks.ts';
import { appendedLog, readIntakeLog } from '../intake/log.ts';
import { loadFrozenStudy } from '../study/frozen-study.ts';
import { obtainTokens } from '../intake/tokens.ts';
import { checkReceipts, receiptFailures } from '../intake/verify-log.ts';
import { prepareFileAtomic, type PreparedFile } from '../io/atomic.ts';
import { readJsonFile, readText } from '../io/json-files.ts';
import { readRegularFile } from '../io/regular-file.ts';
import { studyLayout, type StudyLayout } from '../layout.ts';
import { EXIT, exitCodeOf, PreregError } from '../reasons.ts';
import { parseTsaOverrides, positiveInt } from '../options.ts';
import { loadFrozenItems } from '../freeze/frozen-items.ts';
import type { Command, StageContext, StageResult } from '../command.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';

export const intake: Command = {
  name: 'intake',
  summary: 'receive one signed submission or commitments file into the intake log, with a TSA token and a receipt',
  help: [
    'usage: prereg intake REQUEST.json --operator-key KEY.pem [--file FILE] [--receipt-out FILE]',
    '                     [--tsa NAME=URL]… [--timeout-ms N] [--retries N] [--root DIR] [--json]',
    '       prereg intake --verify-receipt RECEIPT.json [--seal SEAL.json] [--intake-key PEM]',
    '                     [--tsa-root PEM]… [--root DIR] [--json]',
    '',
    "  --operator-key FILE  the operator's Ed25519 intake key (PKCS#8 PEM): its public half is the",
    "                       trust policy's intake_public_key, else operator_public_key",
    "  --file FILE          the file the request signs (default: the request's `file`, beside it)",
    '  --receipt-out FILE   the receipt (default REQUEST without .json + .receipt.json)',
    '  --tsa NAME=URL       ask these TSAs instead of study.json anchors.tsas',
    '',
    "Refuses, writing nothing: a request not signed by one of the system's frozen agent_keys",
    '(INTAKE_SIGNATURE_INVALID), under another freeze (INTAKE_FREEZE_MISMATCH), over other bytes',
    '(INTAKE_FILE_MISMATCH), a request that is not the successor of the last one taken in for its',
    'system and kind (INTAKE_REQUEST_STALE: an older request replayed), a prereg.intake-request/1',
    '(INTAKE_REQUEST_INVALID), a line of another system (SUBMISSION_SYSTEM_NOT_OWNER), a token whose',
    'genTime is before opens_at (INTAKE_EARLY) or at or after closes_at (INTAKE_LATE), a sealed study (SEAL_EXISTS). Other rejected',
    'lines are counted (lines_rejected), the file is stored as received. docs/intake.md.',
    '',
    "--verify-receipt checks a receipt: signed by the intake key it names, that key the operator's",
    "(--intake-key: the operator's key you hold, default the frozen operator_public_key) or",
    "certified by it; under the sealed freeze (else INTAKE_RECEIPT_EQUIVOCATION); its entry's token",
    "and audit path to the seal's log root (from inputs/intake.jsonl): exit 0 sealed (or",
    'INTAKE_RECEIPT_SUPERSEDED, informational), 1 INTAKE_RECEIPT_NOT_SEALED, equivocation or a bad signature.',
  ].join('\n'),
  options: {
    'operator-key': { type: 'string' },
    file: { type: 'string' },
    'receipt-out': { type: 'string' },
    tsa: { type: 'string', multiple: true },
    'timeout-ms': { type: 'string' },
    retries: { type: 'string' },
    'verify-receipt': { type: 'string' },
    seal: { type: 'string' },
    'intake-key': { type: 'string' },
    'tsa-root': { type: 'string', multiple: true },
  },
  stage: true,
  jsonSchema: (ctx) => (typeof ctx.values['verify-receipt'] === 'string' ? 'prereg.intake-receipt/1' : 'prereg.intake/1'),
  operands: { min: 0, max: 1 },
  // Checking a receipt writes nothing.
  writesStudy: (ctx) => typeof ctx.values['verify-receipt'] !== 'string',
  async run(ctx) {
    const layout = studyLayout(ctx.root);
    if (typeof ctx.values['verify-receipt'] === 'string') return verifyReceipt(ctx, layout, ctx.values['verify-receipt']);
    const [requestPath, ...rest] = ctx.positionals;
    if (requestPath === undefined || rest.length > 0)
      throw new PreregError('USAGE', 'usage: prereg intake REQUEST.json --operator-key KEY.pem');
    const operatorKey = readEd25519PrivateKey(ctx.values['operator-key'], '--operator-key');
    return receive(ctx, layout, requestPath, operatorKey);
  },
};

async function receive(
  ctx: StageContext,
  layout: StudyLayout,
  requestPath: string,
  operatorKey: ReturnType<typeof readEd25519PrivateKey>,
): Promise<StageResult> {
  const { frozen, freezeDigest, study, trust, loaded } = loadFrozenStudy(loadStudyFiles(layout));
  if (lstatSync(layout.seal, { throwIfNoEntry: false }))
    throw new PreregError('SEAL_EXISTS', 'inputs/seal.json exists: the intake is sealed and takes no more files; nothing was written');
  const pinned = loaded.intakeKey();
  if (!sameKey(operatorKey, pinned.key)) {
    throw new PreregError(
      'OPERATOR_KEY_MISMATCH',
      `--operator-key's public half is not the intake key pinned in ${pinned.where}; nothing was written`,
    );
  }
  // What each receipt carries to show it is the operator's identity's (SPEC §13.4).
  const signer = pinnedReceiptSigner(loaded, study.study_id);

  const value = readJsonFile(requestPath);
  const problems = requestProblems(value);
  if (problems.length > 0) throw new PreregError('INTAKE_REQUEST_INVALID', `${shown(requestPath)}: ${problems.join('; ')}`, { problems });
  const request = value as IntakeRequest;
  if (request.format !== INTAKE_REQUEST_FORMAT) {
    throw new PreregError(
      'INTAKE_REQUEST_INVALID',
      `${shown(requestPath)} is ${request.format}, which carries no version: the participant signs it again as ${INTAKE_REQUEST_FORMAT} (\`prereg submission sign\`); nothing was written`,
    );
  }
  const refusal = requestRefusal(request, { study_id: study.study_id, systems: study.systems ?? [] }, freezeDigest);
  if (refusal) throw new PreregError(refusal.code, `${shown(requestPath)}: ${refusal.message}; nothing was written`);
  const log = await readIntakeLog(layout, { keepBytes: true });
  // Only the participant says which of its files is the newest: an older request replayed is refused.
  const stale = successorProblem(lastRequestOf(log.entries, request), request);
  if (stale !== null) throw new PreregError('INTAKE_REQUEST_STALE', `${shown(requestPath)}: ${stale}; nothing was written`);

  const filePath =
    typeof ctx.values.file === 'string'
      ? ctx.values.file
      : request.file !== undefined
        ? join(dirname(requestPath), request.file)
        : undefined;
  if (filePath === undefined) throw new PreregError('INTAKE_REQUEST_INVALID', `${shown(requestPath)} names no file: pass --file FILE`);
  const data = readRegularFile(filePath);
  const sha256 = sha256Hex(data);
  if (sha256 !== request.sha256 || data.length !== request.bytes) {
    throw new PreregError(
      'INTAKE_FILE_MISMATCH',
      `${shown(filePath)} is ${data.length} bytes, SHA-256 ${sha256}; the request signs ${request.bytes} bytes, SHA-256 ${request.sha256}; nothing was written`,
    );
  }
  const stored = storedPath(request.kind, request.system_id);
  const prepared: PreparedFile[] = [];
  const discard = () => {
    for (const p of prepared) p.discard();
  };
  try {
    // Checked as stored: the very bytes renamed into place later.
    const storedFile = prepareFileAtomic(join(layout.root, stored), data);
    prepared.push(storedFile);
    ctx.progress(`checking the lines of ${stored}…`);
    const counts = await checkIntakeLines(storedFile.tmp, stored, request.kind, {
      systemId: request.system_id,
      items: loadFrozenItems(loaded).ids,
      maxLineBytes: studyMaxLineBytes(study),
      protocol: lineProtocolOf(study),
    });
    if (counts.sha256 !== sha256) throw new PreregError('INTAKE_FILE_MISMATCH', `${shown(stored)} changed while it was checked`);
    if (counts.not_owner.length > 0) {
      const others = counts.not_owner
        .slice(0, 10)
        .map(([line, s]) => `line ${line} (${JSON.stringify(s)})`)
        .join(', ');
      throw new PreregError(
        'SUBMISSION_SYSTEM_NOT_OWNER',
        `${shown(filePath)}: ${counts.not_owner.length} line(s) name another system than ${JSON.stringify(request.system_id)}: ${others}; nothing was written`,
        { lines: counts.not_owner.map(([l]) => l) },
      );
    }
    const unsigned: Omit<IntakeEntry, 'token'> = {
      seq: log.entries.length,
      prev: log.digests[log.digests.length - 1] ?? GENESIS_PREV,
      request,
      lines_read: counts.lines_read,
      lines_rejected: counts.lines_rejected,
    };
    const digest = entryDigest(unsigned);
    const [token] = await obtainTokens(parseTsaOverrides(ctx.values.tsa) ?? study.anchors.tsas, Buffer.from(digest, 'hex'), trust.tsa, {
      timeoutMs: positiveInt(ctx.values['timeout-ms'], 10_000, '--timeout-ms'),
      retries: positiveInt(ctx.values.retries, 3, '--retries'),
      progress: ctx.progress,
      want: 'first',
    });
    // The window is judged by the witness's date, never the local clock.
    const outside = entryTimeFinding(token!.genTime, frozen.window);
    if (outside) throw new PreregError(outside.code, `the entry's token (${token!.witness}) is ${outside.problem}; nothing was written`);
    const entry: IntakeEntry = { ...unsigned, token: Buffer.from(token!.tsr).toString('base64') };
    const receiptBody: Omit<IntakeReceipt, 'signature'> = {
      format: INTAKE_RECEIPT_FORMAT,
      study_id: study.study_id,
      freeze_digest: freezeDigest,
      entry,
      entry_digest: digest,
      ...signer,
    };
    const receipt: IntakeReceipt = { ...receiptBody, signature: signCanonical(operatorKey, receiptPayload(receiptBody)) };
    const receiptPath =
      typeof ctx.values['receipt-out'] === 'string' ? ctx.values['receipt-out'] : `${requestPath.replace(/\.json$/, '')}.receipt.json`;
    prepared.push(prepareFileAtomic(layout.intakeLog, appendedLog(log, `${JSON.stringify(entry)}\n`)));
    prepared.push(prepareFileAtomic(receiptPath, `${JSON.stringify(receipt, null, 2)}\n`));
    // Everything is written: now into place, the file first, the log entry that names it, the receipt.
    for (const p of prepared) p.commit();
    const json = {
      ok: true,
      seq: entry.seq,
      entry_digest: digest,
      gen_time: token!.genTime,
      witness: token!.witness,
      system_id: request.system_id,
      kind: request.kind,
      stored,
      lines_read: counts.lines_read,
      lines_rejected: counts.lines_rejected,
      receipt: receiptPath,
    };
    return {
      exitCode: EXIT.ok,
      json,
      text: [
        `received ${request.kind} of ${request.system_id} as ${stored}: ${counts.lines_read} lines read, ${counts.lines_rejected} rejected (stored as received; ingest rejects them again)`,
        `entry ${entry.seq} ${digest}, dated ${token!.genTime} by ${token!.witness}`,
        `receipt written to ${receiptPath}`,
      ].join('\n'),
    };
  } catch (err) {
    discard();
    throw err;
  }
}

/** The freezes the sealed one amends, when the study's freeze.json is the sealed freeze (else none: only the sealed freeze is accounted for). */
function sealedChain(layout: StudyLayout, sealed: string): string[] {
  try {
    const loaded = loadStudyFiles(layout);
    if (loaded.freezeDigest() !== sealed) return [];
    return readFreezeChain(layout, loaded.frozen(), sealed).links.map((l) => l.freeze_digest);
  } catch (err) {
    // No readable freeze.json: the sealed freeze alone (what the participant was shown).
    if (err instanceof PreregError) return [];
    throw err;
  }
}

async function verifyReceipt(ctx: StageContext, layout: StudyLayout, receiptPath: string): Promise<StageResult> {
  const sealPath = typeof ctx.values.seal === 'string' ? ctx.values.seal : layout.seal;
  const seal = loadSeal({ ...layout, seal: sealPath });
  const roots = Array.isArray(ctx.values['tsa-root']) ? ctx.values['tsa-root'] : [];
  // The study's own trust only for what the participant did not bring, and read once.
  let frozenStudy: ReturnType<typeof loadFrozenStudy> | undefined;
  const frozen = () => (frozenStudy ??= loadFrozenStudy(loadStudyFiles(layout)));
  const tsaTrust = roots.length > 0 ? loadTsaTrust(roots.map((p) => readText(p))) : frozen().trust.tsa;
  // The operator's identity as the participant holds it, else the study's pinned operator key.
  const identity =
    typeof ctx.values['intake-key'] === 'string'
      ? readEd25519PublicKey(ctx.values['intake-key'], '--intake-key')
      : frozen().loaded.operatorKey().key;
  const log = await readIntakeLog(layout);
  // The participant's freeze must be the sealed one: a receipt under any other is equivocation.
  const [result] = await checkReceipts([{ file: receiptPath, value: readJsonFile(receiptPath) }], seal, {
    identity,
    accountedFreezes: accountedFreezeDigests(seal.freeze_digest, sealedChain(layout, seal.freeze_digest)),
    tsaTrust,
    log,
  });
  const failing = receiptFailures(result!);
  // A receipt or log that cannot be checked (INTAKE_RECEIPT_INVALID, SEAL_INVALID) blocks, as its code exits; any other failure is 1.
  const exitCode = failing.length > 0 ? (failing.some((f) => exitCodeOf(f.code) === EXIT.blocked) ? EXIT.blocked : EXIT.failures) : EXIT.ok;
  const codes = result!.findings.map((f) => f.code);
  return {
    exitCode,
    json: {
      ok: failing.length === 0,
      receipt: receiptPath,
      seq: result!.seq,
      entry_digest: result!.entry_digest,
      sealed: result!.sealed,
      reason_codes: codes,
      findings: result!.findings,
    },
    text: [
      result!.sealed
        ? `${receiptPath}: entry ${result!.seq} is in the sealed log (root ${seal.log.root})`
        : `${receiptPath}: NOT in the sealed log`,
      ...result!.findings.map((f) => `  ${f.code}: ${f.message}`),
    ].join('\n'),
  };
}
