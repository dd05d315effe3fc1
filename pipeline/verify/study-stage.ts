// `prereg verify` in a study: verifies every ingested evidence item and AER-1 timeline into
// proof_checks, chain_checks, chain_entries, evidence_links, whose evidence is whose
// (evidence_ownership, evidence_reuse) and served_passages (SPEC §5.2, §6.1, §6.2), skipping when nothing it consumed changed. Its own module so that verifying files
// (stages/verify.ts) never loads DuckDB; below the command (stages/verify.ts imports it when it runs).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256Hex } from '../formats/hash.ts';
import { sha256OfFileIfAny } from '../io/file-hash.ts';
import { corpusDrift, refuseDrift, trustDrift } from '../study/drift.ts';
import { corpusSections } from '../study/corpus-sections.ts';
import type { LoadedStudy } from '../study/loaded-study.ts';
import { expectedToolsOf, passagesOf } from '../study/study.ts';
import { studyLayout } from '../layout.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { deleteStageRun, duckdbVersion, openStore, storePath, writeStoreInPlace } from '../store/db.ts';
import { TOOL_VERSION } from '../version.ts';
import { runningModule } from '../running-code.ts';
import { readCommitments, requireCommitmentsIfReceipts } from './inputs.ts';
import { verifyStore, type StoreVerifyInputs, type VerifyCounts } from './study-verify.ts';
import { VERIFY_DERIVED_SQL, VERIFY_TABLES_SQL } from '../store/table-files.ts';
import { intakeRecordFiles, listCommitmentsFiles } from '../intake/files.ts';
import { commitmentWitnesses } from '../intake/commitment-witnesses.ts';
import type { CachedStage } from '../cached-stage.ts';
import type { StageContext } from '../command.ts';
import type { DuckDBConnection } from '@duckdb/node-api';
import { checkShards, type CheckedShards } from './shard-merge.ts';
import { shardSource } from './shard-manifest.ts';
import { submissionHashes } from '../ingest/stage.ts';

// The SQL the stage runs, as the files that run (compiled: statements.js; running-code.ts).
const SQL_FILES = [
  VERIFY_TABLES_SQL,
  ...VERIFY_DERIVED_SQL,
  fileURLToPath(runningModule(new URL('../store/statements.ts', import.meta.url))),
];

// How verify's recorded inputs are named when they change.
const VERIFY_LABELS = {
  ingest_digest: 'the ingested submissions',
  corpus_root: 'the frozen corpus',
  passages: 'study.json passages or vocabulary.heading_patterns',
  commitments_sha256: 'inputs/commitments.jsonl',
  participant_commitments: 'inputs/commitments/*.jsonl (commitments received through intake)',
  commitment_witnesses: 'inputs/intake.jsonl, inputs/seal.json or inputs/anchors/ (what dates the commitments)',
  window: 'study.json window',
  systems: 'study.json systems',
  expected_tools: 'study.json protocol.expected_tools',
  code: 'the tool, DuckDB or the verify SQL changed',
};

/** What verify would consume now, given ingest's current inputs digest; refuses a drifted trust policy. */
export function verifyInputs(loaded: LoadedStudy, ingestDigest: string) {
  const { layout } = loaded;
  const frozen = loaded.frozen();
  const study = loaded.study();
  const trustNow = loaded.trustTree();
  refuseDrift(trustDrift(frozen.trust, trustNow), 'run `prereg check-anchors`');
  // Passages are matched against the frozen corpus (SPEC §12.4): only the frozen one.
  refuseDrift(corpusDrift(frozen.corpus, loaded.corpusTree()), 'run `prereg check-anchors`');
  requireCommitmentsIfReceipts(loaded.policy().require_receipts, layout.commitments, layout.participantCommitments);
  return {
    stage: 'verify',
    ingest_digest: ingestDigest,
    // Each file by name, so that a rerun names the one that changed.
    trust: trustNow.files.map((f) => ({ file: `preregistration/trust/${f.path}`, sha256: f.sha256 })),
    commitments_sha256: sha256OfFileIfAny(layout.commitments),
    // Each system's own commitments, received through intake (SPEC §12.2): read beside the operator's.
    participant_commitments: listCommitmentsFiles(layout)
      .filter((f) => f.submitted_through_intake)
      .map((f) => ({ file: f.file, owner: f.owner, sha256: sha256OfFileIfAny(f.path) })),
    window: study.window,
    // What dates the commitments (intake/commitment-witnesses.ts): the log's entries, the seal and its anchors.
    commitment_witnesses: intakeRecordFiles(layout),
    corpus_root: frozen.corpus.root,
    // What a served passage must be to be proven served, and where each identifier's section lies (SPEC §12.4).
    passages: { ...passagesOf(study), heading_patterns: study.vocabulary.heading_patterns },
    // Whose buyer fingerprints bind a proof to a record (SPEC §6.2); the scoring preflight refuses a study.json that drifted from the freeze.
    systems: study.systems ?? null,
    // The actions each timeline must log (SPEC §13.3); each system's names for them are in systems.
    expected_tools: expectedToolsOf(study)?.tools ?? null,
    code: { tool_version: TOOL_VERSION, duckdb_version: duckdbVersion(), sql: SQL_FILES.map((f) => sha256Hex(readFileSync(f))) },
  };
}

export type VerifyInputs = ReturnType<typeof verifyInputs>;

/** `prereg verify` in a study: skip when nothing it consumed changed, else verify into the store. */
export const VERIFY: CachedStage<{ loaded: LoadedStudy; before: VerifyInputs; shards: CheckedShards | null }, VerifyInputs, VerifyCounts> =
  {
    labels: VERIFY_LABELS,
    // Its refusals come before ingest's work, and its digests are taken once: the commitments read
    // later must still be the files hashed here (COMMITMENTS_FILE_CHANGED). Shards given by
    // --verified-shards are checked here too: whole, once each, of these inputs (shard-merge.ts).
    async prepare(ctx, loaded) {
      const before = verifyInputs(loaded, '');
      const dir = ctx.values['verified-shards'];
      return {
        loaded,
        before,
        shards: typeof dir === 'string' ? await checkShards(dir, shardSource(loaded, await submissionHashes(loaded, ctx.progress))) : null,
      };
    },
    inputs: (prepared, upstream) => ({ ...prepared.before, ingest_digest: upstream ?? '' }),
    // Given shards are always loaded: a verify recorded before stands for no shard.
    forced: (prepared) => prepared.shards !== null,
    work: (ctx, prepared, consumed, record) => verifyWork(ctx, prepared.loaded, consumed, record, prepared.shards),
    result(_ctx, _prepared, { skipped, reason, digest, outputs }) {
      if (skipped)
        return {
          exitCode: EXIT.ok,
          json: { ok: true, stage: 'verify', skipped: true, inputs_digest: digest, ...outputs },
          text: `verify: skipped, inputs unchanged since the last verify\n${renderCounts(outputs)}`,
        };
      return {
        exitCode: EXIT.ok,
        json: { ok: true, stage: 'verify', skipped: false, reason, inputs_digest: digest, ...outputs },
        text: `verify: rerun — ${reason}\n${renderCounts(outputs)}`,
      };
    },
  };

async function verifyWork(
  ctx: StageContext,
  loaded: LoadedStudy,
  consumed: VerifyInputs,
  record: (connection: DuckDBConnection, outputs: VerifyCounts) => Promise<void>,
  shards: CheckedShards | null,
): Promise<VerifyCounts> {
  const layout = studyLayout(ctx.root);
  return writeStoreInPlace(storePath(layout), async () => {
    const store = await openStore(storePath(layout));
    try {
      const inputs = storeVerifyInputs(loaded, consumed);
      await deleteStageRun(store.connection, 'verify');
      const counts = await verifyStore(store, inputs, { progress: ctx.progress, ...(shards ? { shards } : {}) });
      await record(store.connection, counts);
      return counts;
    } finally {
      store.close();
    }
  });
}

/**
 * What verifyStore verifies with, from the bytes verifyInputs took the digests of: the trust
 * material, the window, the passages' rule, the systems, the expected tools, and the commitments,
 * read when the timelines are reached and refused if they changed since (COMMITMENTS_FILE_CHANGED).
 */
export function storeVerifyInputs(loaded: LoadedStudy, consumed: VerifyInputs): StoreVerifyInputs {
  const { layout } = loaded;
  const study = loaded.study();
  // Decoded only when the stage runs (the skip above needs their digests alone), from the bytes
  // those digests were taken of; the commitments only once the evidence items are verified (StoreVerifyInputs).
  const inputs = {
    trust: loaded.trust().material.inputs,
    window: study.window,
    passages: {
      sections: corpusSections(loaded.documents(), study.vocabulary.heading_patterns),
      min_chars: consumed.passages.min_chars,
    },
    readCommitments: async () => {
      // Who dated each file (an intake entry, the seal): each line's published_at is judged against it.
      const witnesses = await commitmentWitnesses(layout, listCommitmentsFiles(layout), loaded.trust().tsa);
      // Read minutes after its digest was taken: the bytes read must still be the file this run records.
      const read = createHash('sha256');
      let opened = false;
      const lines = await readCommitments(
        layout.commitments,
        'inputs/commitments.jsonl',
        (chunk) => {
          opened = true;
          read.update(chunk);
        },
        undefined,
        witnesses.get('inputs/commitments.jsonl'),
      );
      const now = opened || existsSync(layout.commitments) ? read.digest('hex') : null;
      if (now !== consumed.commitments_sha256) {
        throw new PreregError(
          'COMMITMENTS_FILE_CHANGED',
          `inputs/commitments.jsonl changed while verify ran (SHA-256 ${consumed.commitments_sha256 ?? 'none'} when it started, ${now ?? 'none'} when the timelines were reached)`,
          { file: 'inputs/commitments.jsonl' },
        );
      }
      // Then each system's own (inputs/commitments/<system_id>.jsonl), under the same rule.
      for (const f of consumed.participant_commitments) {
        const own = createHash('sha256');
        lines.push(
          ...(await readCommitments(
            join(layout.root, f.file),
            f.file,
            (chunk) => own.update(chunk),
            f.owner ?? undefined,
            witnesses.get(f.file),
          )),
        );
        const ownNow = own.digest('hex');
        if (ownNow !== f.sha256)
          throw new PreregError(
            'COMMITMENTS_FILE_CHANGED',
            `${f.file} changed while verify ran (SHA-256 ${f.sha256 ?? 'none'} when it started, ${ownNow} when the timelines were reached)`,
            { file: f.file },
          );
      }
      return lines;
    },
  };
  return { ...inputs, expectedTools: expectedToolsOf(study), ...(study.systems !== undefined ? { systems: study.systems } : {}) };
}

function renderCounts(counts: unknown): string {
  const c = counts as {
    evidence: number;
    chains: number;
    proofs_by_status: Record<string, number>;
    chains_by_status: Record<string, number>;
    commitments?: { lines: number; malformed: string[] };
    ownership?: { registered_systems: number; not_bound: number; reused: number };
    sellers?: { mode: string; unbound: number; unpinned: number };
    passages?: { served: number; not_in_corpus: number };
  };
  const o = c.ownership;
  const sellers = c.sellers;
  const fmt = (t: Record<string, number>) =>
    Object.entries(t)
      .sort()
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || 'none';
  const malformed = c.commitments?.malformed ?? [];
  return [
    `verified ${c.evidence} evidence item(s): ${fmt(c.proofs_by_status)}`,
    `verified ${c.chains} receipt timeline(s): ${fmt(c.chains_by_status)}`,
    ...(c.commitments ? [`read ${c.commitments.lines} commitment line(s), ${malformed.length} malformed`] : []),
    ...malformed,
    ...(o
      ? [
          `evidence ownership (docs/ownership.md), proofs and timelines: ${o.not_bound} EVIDENCE_NOT_BOUND, ${o.reused} EVIDENCE_REUSED; ${
            o.registered_systems > 0
              ? `${o.registered_systems} system(s) registered`
              : "warning: study.json registers no systems, so a copier cancels the original's proven credit (STUDY_SYSTEMS_UNREGISTERED)"
          }`,
        ]
      : []),
    ...(sellers
      ? [
          `sellers (docs/proofs.md): ${sellers.mode === 'any' ? 'warning: the trust policy accepts any seller (a weakened mode)' : sellers.mode === 'missing' ? 'warning: the trust policy pins no seller, so no passage is proven served' : `${sellers.unbound} verified proof(s) EVIDENCE_SELLER_UNBOUND, ${sellers.unpinned} EVIDENCE_SELLER_UNPINNED`}`,
        ]
      : []),
    ...(c.passages ? [`served passages (docs/ownership.md): ${c.passages.served}, ${c.passages.not_in_corpus} PASSAGE_NOT_IN_CORPUS`] : []),
  ].join('\n');
}
