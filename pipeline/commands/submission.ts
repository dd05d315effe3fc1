// The participant's tools (docs/participating.md), offline:
// - `prereg submission build …`: one submission line from an ArkForge proof, its request and
//   response bodies, optionally the owner's disclosure and the AER-1 timeline, checked by the line
//   checks of ingest, validate and intake (pipeline/participant/submission-line.ts);
// - `prereg submission sign FILE --key K --system ID` (SPEC §12.2): writes a signed intake request
//   beside FILE (FILE.intake.json, or --out): the agent key's Ed25519 signature over canonical
//   {study_id, system_id, freeze_digest, kind, version, supersedes, sha256, bytes}, study_id and
//   freeze_digest read from the study's freeze.json; version 1, or one more than the request named
//   by --supersedes, whose request digest it signs. The request names its file by name only
//   (`file`): the operator's `prereg intake` finds it beside the request, or is given --file. With
//   --tsa, a TSA of the participant's choosing dates the request digest; the token is kept beside
//   the request (REQUEST.tsr), for `audit --request`.
import { appendFileSync, existsSync } from 'node:fs';
import { basename } from 'node:path';
import { agentKeyText, signCanonical } from '../evidence/intake/ed25519.ts';
import {
  GENESIS_PREV,
  INTAKE_KINDS,
  INTAKE_REQUEST_FORMAT,
  requestDigest,
  requestPayload,
  requestProblems,
  type IntakeKind,
  type IntakeRequest,
} from '../evidence/intake/records.ts';
import { requestVersion } from '../evidence/intake/request-chain.ts';
import { loadGivenTsaTrust } from '../auditor/trust.ts';
import { requestTokenPath } from '../intake/dated-requests.ts';
import { obtainTokens, type ObtainedToken } from '../intake/tokens.ts';
import { parseTsaOverrides, positiveInt } from '../options.ts';
import { loadFrozenStudy } from '../study/frozen-study.ts';
import { utcMillis } from '../formats/utc-instant.ts';
import { shown } from '../text/display.ts';
import { sha256Hex } from '../formats/hash.ts';
import { readEd25519PrivateKey } from '../intake/keys.ts';
import { prepareFileAtomic, type PreparedFile } from '../io/atomic.ts';
import { readRegularFile } from '../io/regular-file.ts';
import { studyLayout } from '../layout.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { loadStudyFiles, type LoadedStudy } from '../study/loaded-study.ts';
import { lineProtocolOf, loadStudy } from '../study/study.ts';
import { readItems } from '../freeze/answer-key-file.ts';
import { parseJsonAt, readJsonFile, readText } from '../io/json-files.ts';
import { studyMaxLineBytes } from '../ingest/scan.ts';
import { buildSubmissionLine, type EvidenceInput } from '../participant/submission-line.ts';
import type { JsonValue } from '../formats/canonical-json.ts';
import { requiredOption, type Command, type StageContext, type StageResult } from '../command.ts';

const SUMMARY =
  'participant tools: `submission build …` assembles a submission line from a proof and its bodies; `submission sign FILE` writes a signed intake request';

const list = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : typeof v === 'string' ? [v] : []);
const jsonFile = (path: string): JsonValue => parseJsonAt(readText(path), path);

/** `submission build`: the line, checked as ingest would check it (items and protocol of --root's study when there is one). */
async function build(ctx: StageContext): Promise<StageResult> {
  if (ctx.positionals.length !== 1)
    throw new PreregError(
      'USAGE',
      'usage: prereg submission build --system ID --item ID --answer TEXT --proof P.json [--request R.json --response S.json] …',
    );
  const need = (flag: string): string => requiredOption(ctx, flag, 'submission build');
  const systemId = need('system');
  const itemId = need('item');
  const attempt = ctx.values.attempt === undefined ? 1 : Number(ctx.values.attempt);
  if (!Number.isSafeInteger(attempt) || attempt < 1) throw new PreregError('USAGE', '--attempt expects a positive integer');
  if ((ctx.values.answer === undefined) === (ctx.values['answer-file'] === undefined))
    throw new PreregError('USAGE', 'submission build: give the answer with --answer TEXT or --answer-file FILE (one of them)');
  const text = typeof ctx.values.answer === 'string' ? ctx.values.answer : readText(String(ctx.values['answer-file']));
  const proofs = list(ctx.values.proof);
  const requests = list(ctx.values.request);
  const responses = list(ctx.values.response);
  const disclosures = list(ctx.values.disclosure);
  for (const [flag, given] of [
    ['--request', requests],
    ['--response', responses],
    ['--disclosure', disclosures],
  ] as const) {
    if (given.length !== 0 && given.length !== proofs.length)
      throw new PreregError(
        'USAGE',
        `submission build: ${flag} is given ${given.length} time(s) for ${proofs.length} --proof: give it once per proof, in the same order, or not at all`,
      );
  }
  const evidence: EvidenceInput[] = proofs.map((proof, i) => ({
    proof: jsonFile(proof),
    ...(requests[i] === undefined ? {} : { request: jsonFile(requests[i]!) }),
    ...(responses[i] === undefined ? {} : { response: jsonFile(responses[i]!) }),
    ...(disclosures[i] === undefined ? {} : { disclosure: jsonFile(disclosures[i]!) }),
  }));
  const receipts = typeof ctx.values.timeline === 'string' ? jsonFile(ctx.values.timeline) : undefined;
  const layout = studyLayout(ctx.root);
  const study = existsSync(layout.study) ? loadStudy(layout.study) : null;
  const out = typeof ctx.values.out === 'string' ? ctx.values.out : null;
  const before =
    out !== null && existsSync(out)
      ? readText(out)
          .split('\n')
          .filter((l) => l !== '')
      : [];
  const built = buildSubmissionLine(
    {
      system_id: systemId,
      item_id: itemId,
      attempt,
      answer: { text, refused: ctx.values.refused === true, truncated: ctx.values.truncated === true },
      evidence,
      ...(receipts === undefined ? {} : { receipts }),
    },
    {
      items: study === null ? null : new Set(readItems(layout, study).map((i) => i.item_id)),
      protocol: study === null ? { systems: null, attemptsPerItem: null } : lineProtocolOf(study),
      before,
      file: out ?? '<built line>',
      ...(study === null ? {} : { maxLineBytes: studyMaxLineBytes(study) }),
    },
  );
  const notes = study === null ? [`no study at ${layout.study} (pass --root STUDY): item ids and the protocol not checked`] : [];
  if (built.outcome.rejected) {
    const r = built.outcome.rejected;
    return {
      exitCode: EXIT.failures,
      json: { ok: false, reject: r, notes },
      text: [
        `submission build: ${r.reason_code}: ${r.detail}`,
        'nothing was written (`prereg explain CODE` says what to do)',
        ...notes.map((n) => `note: ${n}`),
      ].join('\n'),
    };
  }
  if (out !== null) appendFileSync(out, `${built.line}\n`);
  const record = built.outcome.accepted;
  const summary = {
    system_id: record.system_id,
    item_id: record.item_id,
    attempt: record.attempt,
    evidence: record.evidence.length,
    receipts: record.receipts_json !== null,
    line_sha256: record.line_sha256,
  };
  return {
    exitCode: EXIT.ok,
    json: { ok: true, ...summary, ...(out !== null ? { appended_to: out, line_no: record.line_no } : { line: built.line }), notes },
    text:
      out === null
        ? built.line
        : [
            `built ${JSON.stringify(record.system_id)} ${JSON.stringify(record.item_id)} attempt ${record.attempt}: ${summary.evidence} evidence item(s)${summary.receipts ? ', a receipts timeline' : ''}`,
            `appended as line ${record.line_no} of ${out} (\`prereg verify ${out}${summary.receipts ? ' --commitments YOUR.commitments.jsonl' : ''}\` checks its evidence${summary.receipts ? ' and its timeline against your commitments' : ''})`,
            ...notes.map((n) => `note: ${n}`),
          ].join('\n'),
  };
}

/** The request --supersedes names: a request of the same system and kind (USAGE otherwise). */
function supersededRequest(path: string, systemId: string, kind: IntakeKind): IntakeRequest {
  const value = readJsonFile(path);
  const problems = requestProblems(value);
  if (problems.length > 0)
    throw new PreregError('INTAKE_REQUEST_INVALID', `--supersedes ${shown(path)}: ${problems.join('; ')}`, { problems });
  const previous = value as IntakeRequest;
  if (previous.system_id !== systemId || previous.kind !== kind) {
    throw new PreregError(
      'USAGE',
      `--supersedes ${shown(path)} is ${JSON.stringify(previous.system_id)}'s ${previous.kind}: a request supersedes one of its own system and kind (${JSON.stringify(systemId)}'s ${kind})`,
    );
  }
  return previous;
}

/** With --tsa: a token over the request digest from the participant's TSA, verified under --tsa-root (default the study's roots); null without --tsa. */
async function dateRequest(ctx: StageContext, request: IntakeRequest, loaded: LoadedStudy): Promise<ObtainedToken | null> {
  const tsas = parseTsaOverrides(ctx.values.tsa);
  if (tsas === null) return null;
  const roots = Array.isArray(ctx.values['tsa-root']) ? (ctx.values['tsa-root'] as string[]) : [];
  const trust =
    roots.length > 0
      ? loadGivenTsaTrust(roots, [])
      : loadFrozenStudy(loaded, "the request's token verifies against the frozen trust directory").trust.tsa;
  const [token] = await obtainTokens(tsas, Buffer.from(requestDigest(request), 'hex'), trust, {
    timeoutMs: positiveInt(ctx.values['timeout-ms'], 10_000, '--timeout-ms'),
    retries: positiveInt(ctx.values.retries, 3, '--retries'),
    progress: ctx.progress,
    want: 'first',
  });
  return token!;
}

export const submission: Command = {
  name: 'submission',
  summary: SUMMARY,
  help: [
    'usage: prereg submission build --system ID --item ID [--attempt N] (--answer TEXT | --answer-file F)',
    '                               [--refused] [--truncated] --proof PROOF.json [--request R.json]',
    '                               [--response S.json] [--disclosure D.json] [--timeline T.json]',
    '                               [--out FILE.jsonl] [--root STUDY] [--json]',
    '       prereg submission sign FILE --key KEY.pem --system ID [--kind submissions|commitments]',
    '                              [--supersedes PREVIOUS.intake.json] [--out REQUEST.json]',
    '                              [--tsa NAME=URL]… [--tsa-root PEM]… [--timeout-ms N] [--retries N]',
    '                              [--root DIR] [--json]',
    '',
    'build: one submission line (canonical JSON) with one evidence item per --proof (--request,',
    '  --response and --disclosure, when given, once per --proof, in the same order), the answer and',
    "  the attempt's AER-1 timeline as receipts; checked by the line checks of ingest (the items and",
    '  protocol of the study under --root when there is one); printed, or appended to --out (the',
    '  lines already there count for duplicates). Exit 1, nothing written, when a check rejects it.',
    '',
    'sign:',
    "  --key FILE     the system's Ed25519 private key (PKCS#8 PEM); its public half must be one of",
    "                 the system's agent_keys in study.json",
    "  --kind K       submissions (default) or commitments (the system's own AER-1 commitments)",
    '  --out FILE     where to write the request (default FILE.intake.json, beside FILE)',
    "  --supersedes R the system's previous request of this kind (the last one the operator took",
    '                 in): the new one is its version + 1 and names its request digest. Without it,',
    '                 version 1. Intake takes in only the successor of the last request it took in.',
    '  --tsa NAME=URL have the request dated by this TSA (repeatable: the first that answers); the',
    '                 token is written beside the request (REQUEST.tsr, REQUEST without .json). Keep',
    '                 both: `prereg audit --request REQUEST.json` shows a request withheld.',
    "  --tsa-root PEM the roots the token must chain to (default: the study's pinned TSA roots)",
    '',
    "Reads study_id and freeze_digest from the study's preregistration/freeze.json (--root), and",
    'signs canonical {study_id, system_id, freeze_digest, kind, version, supersedes, sha256, bytes}',
    'of FILE. Send the request with FILE to the operator, who runs `prereg intake REQUEST`.',
    'docs/intake.md, docs/participating.md.',
  ].join('\n'),
  options: {
    key: { type: 'string' },
    system: { type: 'string' },
    kind: { type: 'string' },
    out: { type: 'string' },
    item: { type: 'string' },
    attempt: { type: 'string' },
    answer: { type: 'string' },
    'answer-file': { type: 'string' },
    refused: { type: 'boolean' },
    truncated: { type: 'boolean' },
    proof: { type: 'string', multiple: true },
    request: { type: 'string', multiple: true },
    response: { type: 'string', multiple: true },
    disclosure: { type: 'string', multiple: true },
    timeline: { type: 'string' },
    supersedes: { type: 'string' },
    tsa: { type: 'string', multiple: true },
    'tsa-root': { type: 'string', multiple: true },
    'timeout-ms': { type: 'string' },
    retries: { type: 'string' },
  },
  stage: false,
  jsonSchema: (ctx) => (ctx.positionals[0] === 'build' ? 'prereg.submission-build/1' : 'prereg.submission-sign/1'),
  operands: { min: 1, max: 2 },
  async run(ctx) {
    if (ctx.positionals[0] === 'build') return build(ctx);
    const [verb, file, ...rest] = ctx.positionals;
    if (verb !== 'sign' || file === undefined || rest.length > 0)
      throw new PreregError('USAGE', 'usage: prereg submission build … | prereg submission sign FILE --key KEY.pem --system ID');
    const systemId = ctx.values.system;
    if (typeof systemId !== 'string') throw new PreregError('USAGE', '--system ID is required');
    const kind = (ctx.values.kind ?? 'submissions') as IntakeKind;
    if (!INTAKE_KINDS.includes(kind)) throw new PreregError('USAGE', '--kind is submissions or commitments');
    const key = readEd25519PrivateKey(ctx.values.key, '--key');
    const layout = studyLayout(ctx.root);
    const loaded = loadStudyFiles(layout);
    const frozen = loaded.frozen();
    const publicKey = agentKeyText(key);
    // Refused here rather than at intake: a key the study does not register for the system.
    const study = loaded.study();
    const system = study.systems?.find((s) => s.system_id === systemId);
    if (!system?.agent_keys?.some((k) => k.public_key === publicKey)) {
      throw new PreregError(
        'INTAKE_SIGNATURE_INVALID',
        `${publicKey} is not one of ${JSON.stringify(systemId)}'s agent_keys in study.json; intake would refuse the request`,
      );
    }
    const previous = typeof ctx.values.supersedes === 'string' ? supersededRequest(ctx.values.supersedes, systemId, kind) : null;
    const data = readRegularFile(file);
    const unsigned = {
      study_id: frozen.study_id,
      system_id: systemId,
      freeze_digest: loaded.freezeDigest(),
      kind,
      version: previous === null ? 1 : requestVersion(previous) + 1,
      supersedes: previous === null ? GENESIS_PREV : requestDigest(previous),
      sha256: sha256Hex(data),
      bytes: data.length,
    };
    const request: IntakeRequest = {
      format: INTAKE_REQUEST_FORMAT,
      ...unsigned,
      file: basename(file),
      public_key: publicKey,
      signature: signCanonical(key, requestPayload(unsigned)),
    };
    const out = typeof ctx.values.out === 'string' ? ctx.values.out : `${file}.intake.json`;
    const dated = await dateRequest(ctx, request, loaded);
    const files: PreparedFile[] = [];
    try {
      // The token first: a request without the token it was dated by would lose its date.
      if (dated !== null) files.push(prepareFileAtomic(requestTokenPath(out), dated.tsr));
      files.push(prepareFileAtomic(out, `${JSON.stringify(request, null, 2)}\n`));
      for (const f of files) f.commit();
    } catch (err) {
      for (const f of files) f.discard();
      throw err;
    }
    const when =
      dated === null
        ? []
        : [
            `dated ${dated.genTime} by ${dated.witness}: token written to ${requestTokenPath(out)}${utcMillis(dated.genTime)! >= utcMillis(frozen.window.closes_at)! ? ` — after closes_at ${frozen.window.closes_at}: it proves nothing` : ''}`,
          ];
    return {
      exitCode: EXIT.ok,
      json: {
        ok: true,
        request: out,
        request_digest: requestDigest(request),
        ...unsigned,
        ...(dated === null ? {} : { token: requestTokenPath(out), gen_time: dated.genTime, witness: dated.witness }),
      },
      text: [
        `signed ${kind} of ${systemId}, version ${unsigned.version}: ${data.length} bytes, SHA-256 ${unsigned.sha256}`,
        `request written to ${out} (send it with ${basename(file)} to the operator)`,
        ...when,
      ].join('\n'),
    };
  },
};
