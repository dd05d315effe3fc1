// `prereg verify`: in a study, verifies every ingested evidence item and AER-1 timeline into
// proof_checks, chain_checks, chain_entries, evidence_links and served_passages (SPEC §5.2, §6.1,
// §6.2); with files, verifies those files alone (SPEC §9) with the same code.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { canonicalJson } from '../formats/canonical-json.ts';
import { sha256Hex } from '../formats/hash.ts';
import { refuseDrift, trustDrift } from '../study/drift.ts';
import { digestTree } from '../study/file-tree.ts';
import { loadFreezeRecord } from '../study/freeze-record.ts';
import { loadStudy } from '../study/study.ts';
import { studyLayout } from '../layout.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { deleteStageRun, duckdbVersion, openStore, readStageRun, storePath, writeStageRun } from '../store/db.ts';
import { sha256OfFileIfAny } from '../io/file-hash.ts';
import { TOOL_VERSION } from '../version.ts';
import { expandPaths, fileVerified, verifyFiles } from '../verify/file-verify.ts';
import { commitmentProblems, readCommitments, UNBOUNDED_WINDOW, verifyContextInputs } from '../verify/inputs.ts';
import { verifyStore } from '../verify/study-verify.ts';
import { ingest } from './ingest.ts';
import { runOnce, type Command, type StageContext, type StageResult } from '../command.ts';

const SQL_FILES = ['../store/verify-tables.sql', '../store/served-passages.sql', '../store/statements.ts'].map((p) => fileURLToPath(new URL(p, import.meta.url)));

export const verify: Command = {
  name: 'verify',
  summary: 'verify every proof and receipt timeline of the study (or the given files)',
  help: [
    'usage: prereg verify [--force] [--root DIR] [--json]',
    '       prereg verify FILE|DIR… [--trust DIR] [--commitments FILE] [--root DIR] [--json]',
    '',
    'In a study (no files): runs ingest if the store is missing or stale, then verifies every',
    'evidence item (ArkForge proof: hashes, chain hash or spec 3.x commitments and openings, Ed25519',
    'with a pinned key, batch inclusion proof, RFC 3161 token, transparency-log entry; docs/proofs.md)',
    'and every AER-1 timeline (rules of docs/aer1.md, external commitments) on all cores, into',
    'proof_checks, chain_checks, chain_entries, evidence_links and served_passages. A malformed',
    'line of inputs/commitments.jsonl is reported (file:line, COMMITMENT_MALFORMED) and the other',
    'lines still count. Skips when nothing it consumed changed (--force reruns). Exit 0; 3 when',
    'the trust directory drifted from the freeze.',
    '',
    'With files: each is a proof, an evidence item ({proof, request?, response?, disclosure?,',
    'transparency_log_entry?}), an AER-1 timeline (a JSON array, or {"format":"aer-1", "revision",',
    '"entries"}) or a single AER-1 receipt (an object with receipt_schema_version); directories',
    'are walked for *.json in sorted order. --trust defaults to preregistration/trust,',
    '--commitments to inputs/commitments.jsonl, the window to the study\'s when a study.json is',
    'found, else unbounded. With --json, one line per file: {file, kind, status, reason_codes,',
    'informational_codes, checks, problems}, then one line per malformed commitments line',
    '({file, line, kind: "commitment", status: "MALFORMED", …}). Exit 0 when every file reached',
    'the best status of its kind (VERIFIED, ANCHORED, CONFORMANT: a conformant receipt is',
    'consistent, not evidence) and no commitments line is malformed, 1 otherwise.',
  ].join('\n'),
  options: { trust: { type: 'string' }, commitments: { type: 'string' }, force: { type: 'boolean' } },
  stage: true,
  async run(ctx) {
    return ctx.positionals.length > 0 ? verifyGivenFiles(ctx) : verifyStudy(ctx);
  },
};

async function verifyGivenFiles(ctx: StageContext): Promise<StageResult> {
  const layout = studyLayout(ctx.root);
  const trustDir = typeof ctx.values.trust === 'string' ? ctx.values.trust : layout.trust;
  const commitmentsPath = typeof ctx.values.commitments === 'string' ? ctx.values.commitments : layout.commitments;
  if (typeof ctx.values.commitments === 'string' && !existsSync(commitmentsPath)) {
    throw new PreregError('FILE_NOT_FOUND', `${commitmentsPath} does not exist`, {}, EXIT.usage);
  }
  const window = existsSync(layout.study) ? loadStudy(layout.study).window : UNBOUNDED_WINDOW;
  const commitments = await readCommitments(commitmentsPath, typeof ctx.values.commitments === 'string' ? commitmentsPath : 'inputs/commitments.jsonl');
  const inputs = verifyContextInputs(trustDir, window, commitments);
  const results = await verifyFiles(expandPaths(ctx.positionals), inputs);
  // A malformed line that names no job concerns every timeline: each one lists it. A line that
  // names a job is already among that job's timelines' problems.
  const unattributed = commitmentProblems(commitments.filter((l) => !l.ok && l.job_id === null));
  for (const r of results) if (r.kind === 'chain') r.problems.push(...unattributed);
  // A malformed commitments line is an input that did not verify either: one more JSON line each
  // (kind "commitment", after the files), and the exit says so.
  const malformed = commitments.flatMap((l) => (l.ok ? [] : [{
    file: l.file, line: l.line, kind: 'commitment', status: 'MALFORMED', reason_codes: ['COMMITMENT_MALFORMED'], informational_codes: [], checks: {}, problems: l.problems,
  }]));
  const ok = results.every(fileVerified) && malformed.length === 0;
  return {
    exitCode: ok ? EXIT.ok : EXIT.failures,
    json: [...results, ...malformed],
    jsonLines: [...results, ...malformed],
    text: [
      ...commitmentProblems(commitments),
      ...results.map((r) => `${r.file}: ${r.kind} ${r.status}${r.reason_codes.length ? ` ${r.reason_codes.join(' ')}` : ''}${r.problems.length ? `\n  ${r.problems.join('\n  ')}` : ''}`),
    ].join('\n'),
  };
}

async function verifyStudy(ctx: StageContext): Promise<StageResult> {
  const layout = studyLayout(ctx.root);
  const frozen = loadFreezeRecord(layout.freeze);
  const study = loadStudy(layout.study);
  const trustNow = digestTree(layout.trust);
  refuseDrift(trustDrift(frozen.trust, trustNow), 'run `prereg check-anchors`');
  const ingested = (await runOnce(ingest, { ...ctx, values: {} })).json as { inputs_digest: string };
  const consumed = {
    stage: 'verify',
    ingest_digest: ingested.inputs_digest,
    trust_root: trustNow.root,
    commitments_sha256: sha256OfFileIfAny(layout.commitments),
    window: study.window,
    code: { tool_version: TOOL_VERSION, duckdb_version: duckdbVersion(), sql: SQL_FILES.map((f) => sha256Hex(readFileSync(f))) },
  };
  const digest = sha256Hex(canonicalJson(consumed));
  const store = await openStore(storePath(layout));
  try {
    const previous = await readStageRun(store.connection, 'verify');
    if (previous && previous.inputs_digest === digest && ctx.values.force !== true) {
      const outputs = JSON.parse(previous.outputs_json) as unknown;
      return { exitCode: EXIT.ok, json: { ok: true, stage: 'verify', skipped: true, inputs_digest: digest, ...(outputs as object) }, text: `verify: skipped, inputs unchanged since the last verify\n${renderCounts(outputs)}` };
    }
    // Read and decoded only when the stage runs: the skip above needs their digests alone.
    const commitments = await readCommitments(layout.commitments, 'inputs/commitments.jsonl');
    const inputs = verifyContextInputs(layout.trust, study.window, commitments);
    await deleteStageRun(store.connection, 'verify');
    const counts = {
      ...(await verifyStore(store.instance, store.connection, inputs, inputs.trust.policy.require_receipts, ctx.progress)),
      commitments: { lines: commitments.length, malformed: commitmentProblems(commitments) },
    };
    await writeStageRun(store.connection, {
      stage: 'verify',
      inputs_digest: digest,
      inputs_json: canonicalJson(consumed),
      outputs_json: canonicalJson(counts),
      tool_version: TOOL_VERSION,
      duckdb_version: duckdbVersion(),
    });
    return { exitCode: EXIT.ok, json: { ok: true, stage: 'verify', skipped: false, inputs_digest: digest, ...counts }, text: renderCounts(counts) };
  } finally {
    store.close();
  }
}

function renderCounts(counts: unknown): string {
  const c = counts as {
    evidence: number; chains: number; proofs_by_status: Record<string, number>; chains_by_status: Record<string, number>;
    commitments?: { lines: number; malformed: string[] };
  };
  const fmt = (t: Record<string, number>) => Object.entries(t).sort().map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
  const malformed = c.commitments?.malformed ?? [];
  return [
    `verified ${c.evidence} evidence item(s): ${fmt(c.proofs_by_status)}`,
    `verified ${c.chains} receipt timeline(s): ${fmt(c.chains_by_status)}`,
    ...(c.commitments ? [`read ${c.commitments.lines} commitment line(s), ${malformed.length} malformed`] : []),
    ...malformed,
  ].join('\n');
}
