// `prereg deviation --text TEXT --operator-key KEY` (SPEC §13.3, docs/deviations.md): records
// something done differently from the frozen plan, and why. The entry names the freeze, the
// previous entry's digest and the intake log's head at this moment; it is signed with the pinned
// operator key and dated by an RFC 3161 token over its digest, then appended to
// inputs/deviations.jsonl in one atomic write. Refuses, writing nothing: a key that is not the
// pinned operator key (OPERATOR_KEY_MISMATCH), a log an auditor could not check (its first
// finding's code), a token dated before the freeze's earliest anchor (DEVIATION_BEFORE_FREEZE).
// A deviation changes nothing computed: the report lists it, the audit checks it. Holds the study lock.
import { sameKey, signCanonical } from '../evidence/intake/ed25519.ts';
import { GENESIS_PREV } from '../evidence/intake/records.ts';
import { deviationOrderFinding, deviationTimeFinding } from '../evidence/deviations/check.ts';
import { DEVIATION_FORMAT, deviationDigest, deviationProblems, type DeviationEntry } from '../evidence/deviations/records.ts';
import { DEVIATION_LOG, deviationGrounds, refuseDeviationFindings, verifyDeviationLog } from '../deviations/log.ts';
import { readIntakeLog } from '../intake/log.ts';
import { readEd25519PrivateKey } from '../intake/keys.ts';
import { obtainTokens } from '../intake/tokens.ts';
import { writeFileAtomic } from '../io/atomic.ts';
import { studyLayout } from '../layout.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { loadFrozenStudy } from '../study/frozen-study.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';
import { requiredOption, type Command } from '../command.ts';
import { parseTsaOverrides, positiveInt } from '../options.ts';

/** The longest text, in code points (schemas/deviation.schema.json). */
const MAX_TEXT = 20_000;

export const deviation: Command = {
  name: 'deviation',
  summary: 'record a deviation from the frozen plan: signed by the operator key, dated by a TSA, chained into inputs/deviations.jsonl',
  help: [
    'usage: prereg deviation --text TEXT --operator-key KEY.pem [--tsa NAME=URL]… [--timeout-ms N] [--retries N] [--root DIR] [--json]',
    '',
    '  --text TEXT          what was done differently from the plan, and why',
    "  --operator-key FILE  the operator's Ed25519 private key (PKCS#8 PEM) whose public half the frozen",
    '                       trust policy pins as operator_public_key',
    '  --tsa NAME=URL       ask these TSAs instead of study.json anchors.tsas',
    '',
    "Appends one prereg.deviation/1 entry to inputs/deviations.jsonl: the freeze, the previous entry's",
    "digest, the intake log's head now, the text, the operator's signature and a TSA token over the",
    'entry. Nothing computed changes; the report lists every deviation after the finding, marking those',
    'dated at or after closes_at "after the submissions were seen", and the audit checks the log.',
    'Refuses, writing nothing: another key (OPERATOR_KEY_MISMATCH), a log that does not check',
    "(DEVIATION_LOG_INVALID, DEVIATION_SIGNATURE_INVALID, …), a token dated before the freeze's",
    'earliest anchor (DEVIATION_BEFORE_FREEZE). docs/deviations.md.',
  ].join('\n'),
  options: {
    text: { type: 'string' },
    'operator-key': { type: 'string' },
    tsa: { type: 'string', multiple: true },
    'timeout-ms': { type: 'string' },
    retries: { type: 'string' },
  },
  stage: true,
  jsonSchema: () => 'prereg.deviation-recorded/1',
  writesStudy: () => true,
  async run(ctx) {
    const layout = studyLayout(ctx.root);
    const text = requiredOption(ctx, 'text', 'deviation');
    if (text.trim() === '') throw new PreregError('USAGE', 'deviation: --text says nothing');
    if ([...text].length > MAX_TEXT) throw new PreregError('USAGE', `deviation: --text is longer than ${MAX_TEXT} characters`);
    const operatorKey = readEd25519PrivateKey(ctx.values['operator-key'], '--operator-key');
    const state = loadFrozenStudy(loadStudyFiles(layout), 'a deviation is signed with the operator key the frozen trust directory pins');
    const pinned = state.loaded.operatorKey();
    if (!sameKey(operatorKey, pinned.key)) {
      throw new PreregError(
        'OPERATOR_KEY_MISMATCH',
        `--operator-key's public half is not the operator_public_key pinned in ${pinned.file}; nothing was written`,
      );
    }
    // The freeze's anchors are verified once, for the log's check and this entry's date.
    const grounds = await deviationGrounds(state, state.trust.tsa);
    const verified = await verifyDeviationLog(state, state.trust.tsa, grounds);
    refuseDeviationFindings(verified);
    const { log } = verified;
    const intake = await readIntakeLog(layout);
    const unsigned: Omit<DeviationEntry, 'signature' | 'token'> = {
      format: DEVIATION_FORMAT,
      study_id: state.study.study_id,
      freeze_digest: state.freezeDigest,
      seq: log.entries.length,
      prev: log.digests[log.digests.length - 1] ?? GENESIS_PREV,
      intake: { entries: intake.entries.length, head: intake.digests[intake.digests.length - 1] ?? GENESIS_PREV },
      text,
    };
    const signed = { ...unsigned, signature: signCanonical(operatorKey, unsigned) };
    const digest = deviationDigest(signed);
    const [token] = await obtainTokens(
      parseTsaOverrides(ctx.values.tsa) ?? state.study.anchors.tsas,
      Buffer.from(digest, 'hex'),
      state.trust.tsa,
      {
        timeoutMs: positiveInt(ctx.values['timeout-ms'], 10_000, '--timeout-ms'),
        retries: positiveInt(ctx.values.retries, 3, '--retries'),
        progress: ctx.progress,
        want: 'first',
      },
    );
    // Dated by the witness, never the local clock: not before the freeze, not before the last entry.
    const early = deviationTimeFinding(token!.genTime, grounds.frozenAt);
    if (early) throw new PreregError('DEVIATION_BEFORE_FREEZE', `the token (${token!.witness}) is ${early}; nothing was written`);
    const unordered = deviationOrderFinding(token!.genTime, verified.checked[verified.checked.length - 1]?.gen_time ?? null);
    if (unordered)
      throw new PreregError(
        'DEVIATION_LOG_INVALID',
        `the token (${token!.witness}) is ${unordered}: check the TSA's clock; nothing was written`,
      );
    const entry: DeviationEntry = { ...signed, token: Buffer.from(token!.tsr).toString('base64') };
    const problems = deviationProblems(entry);
    if (problems.length > 0) throw new Error(`deviation: the entry built is not a ${DEVIATION_FORMAT} entry: ${problems.join('; ')}`);
    writeFileAtomic(layout.deviations, Buffer.concat([log.bytes, Buffer.from(`${JSON.stringify(entry)}\n`, 'utf8')]));
    const json = {
      ok: true,
      seq: entry.seq,
      entry_digest: digest,
      gen_time: token!.genTime,
      witness: token!.witness,
      intake: entry.intake,
      log: DEVIATION_LOG,
    };
    return {
      exitCode: EXIT.ok,
      json,
      text: [
        `recorded deviation ${entry.seq} in ${DEVIATION_LOG}: ${digest}`,
        `  dated ${token!.genTime} by ${token!.witness}; signed after ${entry.intake.entries} intake entr${entry.intake.entries === 1 ? 'y' : 'ies'}`,
      ].join('\n'),
    };
  },
};
