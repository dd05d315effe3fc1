// `prereg verify`: in a study (verify/study-stage.ts), verifies every ingested evidence item and
// AER-1 timeline into proof_checks, chain_checks, chain_entries, evidence_links and
// served_passages (SPEC §5.2, §6.1, §6.2); with files, verifies those files alone (SPEC §9) with
// the same code, printing each file's line as soon as it is known.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadStudy } from '../study/study.ts';
import { studyLayout } from '../layout.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { expandPaths, fileVerified, verifyFiles } from '../verify/file-verify.ts';
import { commitmentProblems, readCommitments, registeredAgentKeys, UNBOUNDED_WINDOW, verifyContextInputs } from '../verify/inputs.ts';
import type { CommitmentLine, CommitmentWitness } from '../evidence/aer1/index.ts';
import { listCommitmentsFiles } from '../intake/files.ts';
import { commitmentWitnesses } from '../intake/commitment-witnesses.ts';
import { loadTrust } from '../study/trust.ts';
import type { Command, StageContext, StageResult } from '../command.ts';
import { shown, shownJson } from '../text/display.ts';

export const verify: Command = {
  name: 'verify',
  summary: 'verify every proof and receipt timeline of the study (or the given files)',
  help: [
    'usage: prereg verify [--force] [--root DIR] [--json]',
    '       prereg verify --shard I/N --out DIR [--root DIR] [--json]',
    '       prereg verify FILE|DIR… [--trust DIR] [--commitments FILE] [--root DIR] [--json]',
    '',
    'In a study (no files): runs ingest if the store is missing or stale, then verifies every',
    'evidence item (ArkForge proof: hashes, chain hash or spec 3.x commitments and openings, Ed25519',
    'with a pinned key, batch inclusion proof, RFC 3161 token, transparency-log entry; docs/proofs.md)',
    'and every AER-1 timeline (rules of docs/aer1.md, external commitments) on all cores, into',
    'proof_checks, chain_checks, chain_entries, evidence_links and served_passages, and whose',
    'evidence is whose (evidence_ownership, evidence_reuse: EVIDENCE_NOT_BOUND, EVIDENCE_REUSED;',
    'docs/ownership.md), with a warning when study.json registers no systems, and which passages',
    'are proven served: from a seller the trust policy pins (EVIDENCE_SELLER_UNBOUND,',
    "EVIDENCE_SELLER_UNPINNED) and frozen corpus text of their ref's section (passage_corpus,",
    'PASSAGE_NOT_IN_CORPUS; docs/ownership.md "Served"). A malformed',
    'line of inputs/commitments.jsonl is reported (file:line, COMMITMENT_MALFORMED) and the other',
    'lines still count. Skips when nothing it consumed changed (--force reruns). Exit 0; 3 when',
    'the trust directory or the corpus drifted from the freeze, or when the policy requires receipts and',
    'inputs/commitments.jsonl does not exist (COMMITMENTS_MISSING).',
    '',
    "With --shard I/N --out DIR (0 <= I < N; docs/scaling.md): one machine's share of those checks.",
    'Reads the sealed inputs itself (no store is shared), checks the evidence items and timelines of',
    'the records whose SHA-256 of [system_id, item_id, attempt] falls to shard I, and writes their rows',
    "as Parquet with shard.json (frozen digests, input files, I and N, each table's rows and SHA-256)",
    'into DIR, which must not exist; it appears whole or not at all. `prereg run --verified-shards`',
    'merges the N shards. A bad I/N is USAGE (exit 2).',
    '',
    'With files: each is a proof, an evidence item ({proof, request?, response?, disclosure?,',
    'transparency_log_entry?}), an AER-1 timeline (a JSON array, or {"format":"aer-1", "revision",',
    '"entries"}) or a single AER-1 receipt (an object with receipt_schema_version); directories',
    'are walked for *.json and *.jsonl in sorted order. A submission file (*.jsonl) has every',
    'evidence item and the receipts of every line verified, each result with its line and part. --trust defaults to preregistration/trust,',
    "--commitments to the study's commitments files (inputs/commitments.jsonl and each system's own",
    "inputs/commitments/<system_id>.jsonl), the window and the agent keys to the study's when a study.json is",
    "found, else unbounded and none; a submission line's timeline is owned by its system_id, as in the study. Paths holding nothing to verify are refused (NOTHING_TO_VERIFY, exit 3). With --json, one line per file: {file, kind, status, reason_codes,",
    'informational_codes, checks, seller (proofs: the seller the proof binds, or null), problems}, then one line per malformed commitments line',
    '({file, line, kind: "commitment", status: "MALFORMED", …}). Exit 0 when every file reached',
    'the best status of its kind (VERIFIED, ANCHORED, CONFORMANT: a conformant receipt is',
    'consistent, not evidence) and no commitments line is malformed, 1 otherwise.',
  ].join('\n'),
  options: {
    trust: { type: 'string' },
    commitments: { type: 'string' },
    force: { type: 'boolean' },
    shard: { type: 'string' },
    out: { type: 'string' },
  },
  stage: true,
  operands: { min: 0, max: Infinity },
  jsonSchema: (ctx) =>
    ctx.positionals.length > 0 ? 'prereg.verify-files/2' : ctx.values.shard !== undefined ? 'prereg.verify-shard/1' : 'prereg.verify/1',
  // Verifying given files writes nothing; the study mode writes the store.
  writesStudy: (ctx) => ctx.positionals.length === 0,
  async run(ctx) {
    const shard = ctx.values.shard;
    const out = ctx.values.out;
    if (shard !== undefined || out !== undefined) {
      if (typeof shard !== 'string' || typeof out !== 'string' || ctx.positionals.length > 0 || ctx.values.force === true)
        throw new PreregError('USAGE', '--shard I/N and --out DIR go together, without files or --force');
      const { parseShardSpec } = await import('../verify/shard-share.ts');
      const spec = parseShardSpec(shard);
      return (await import('../verify/shard-write.ts')).verifyShard(ctx, spec, out);
    }
    // The study mode (DuckDB; verify/study-stage.ts) is imported only when it runs: checking files needs no store.
    return ctx.positionals.length > 0 ? verifyGivenFiles(ctx) : (await import('../run/runner.ts')).runStage('verify', ctx);
  },
};

/** JSON lines per write to stdout: one write per line cost more than building the line. */
const LINES_PER_WRITE = 64;

async function verifyGivenFiles(ctx: StageContext): Promise<StageResult> {
  const layout = studyLayout(ctx.root);
  const trustDir = typeof ctx.values.trust === 'string' ? ctx.values.trust : layout.trust;
  const commitmentsPath = typeof ctx.values.commitments === 'string' ? ctx.values.commitments : layout.commitments;
  if (typeof ctx.values.commitments === 'string' && !existsSync(commitmentsPath)) {
    throw new PreregError('FILE_NOT_FOUND', `${commitmentsPath} does not exist`);
  }
  // In a study, what the study stage reads: its window, its agent keys, and every commitments file
  // (the operator-collected one and each system's own from intake) unless --commitments names one.
  const study = existsSync(layout.study) ? loadStudy(layout.study) : null;
  const commitments: CommitmentLine[] = [];
  if (typeof ctx.values.commitments === 'string') commitments.push(...(await readCommitments(commitmentsPath)));
  else if (study !== null) {
    // Each file dated as the study stage dates it (an intake entry, the seal); without a trust
    // directory no token can be checked (verifyContextInputs refuses that next).
    const files = listCommitmentsFiles(layout);
    const witnesses = existsSync(join(trustDir, 'policy.json'))
      ? await commitmentWitnesses(layout, files, loadTrust(trustDir).tsa)
      : new Map<string, CommitmentWitness>();
    for (const f of files)
      commitments.push(...(await readCommitments(f.path, f.file, undefined, f.owner ?? undefined, witnesses.get(f.file))));
  } else commitments.push(...(await readCommitments(commitmentsPath, 'inputs/commitments.jsonl')));
  const inputs = verifyContextInputs(trustDir, study?.window ?? UNBOUNDED_WINDOW, commitments, registeredAgentKeys(study?.systems ?? []));
  // A malformed line that names no job concerns every timeline: each one lists it. A line that
  // names a job is already among that job's timelines' problems.
  const unattributed = commitmentProblems(commitments.filter((l) => !l.ok && l.job_id === null));
  const files = expandPaths(ctx.positionals); // a missing path is refused before anything is printed
  if (files.length === 0) {
    throw new PreregError('NOTHING_TO_VERIFY', `${ctx.positionals.join(', ')}: no *.json or *.jsonl file to verify`, {
      paths: ctx.positionals,
    });
  }
  const header = commitmentProblems(commitments).map(shown);
  const lines: string[] = [...header];
  const print = ctx.printLine;
  if (print && !ctx.json) for (const line of header) print(null, line);
  // Each file's line is printed as soon as it and the files before it are verified; JSON lines
  // LINES_PER_WRITE at a time, in one write (the text of a line is built only without --json).
  let batch = '';
  let batched = 0;
  const flush = () => {
    if (batch !== '') ctx.write!(batch);
    batch = '';
    batched = 0;
  };
  const results = await verifyFiles(files, inputs, (r) => {
    if (r.kind === 'chain') r.problems.push(...unattributed);
    if (ctx.json && print && ctx.write) {
      batch += `${ctx.jsonLine ? ctx.jsonLine(r) : shownJson(r)}\n`;
      if (++batched === LINES_PER_WRITE) flush();
      return;
    }
    const text = ctx.json
      ? ''
      : `${shown(r.file)}${r.line !== undefined ? `:${r.line} ${r.part}` : ''}: ${r.kind} ${r.status}${r.reason_codes.length ? ` ${r.reason_codes.join(' ')}` : ''}${r.problems.length ? `\n  ${r.problems.map(shown).join('\n  ')}` : ''}`;
    if (!ctx.json) lines.push(text);
    print?.(r, text);
  });
  if (ctx.write) flush();
  // A malformed commitments line is an input that did not verify either: one more JSON line each
  // (kind "commitment", after the files), and the exit says so.
  const malformed = commitments.flatMap((l) =>
    l.ok
      ? []
      : [
          {
            file: l.file,
            line: l.line,
            kind: 'commitment',
            status: 'MALFORMED',
            reason_codes: ['COMMITMENT_MALFORMED'],
            informational_codes: [],
            checks: {},
            problems: l.problems,
          },
        ],
  );
  if (print && ctx.json) for (const m of malformed) print(m, '');
  const ok = results.every(fileVerified) && malformed.length === 0;
  return {
    exitCode: ok ? EXIT.ok : EXIT.failures,
    json: [...results, ...malformed],
    jsonLines: [...results, ...malformed],
    text: lines.join('\n'),
    printed: print !== undefined,
  };
}
