// The verify stage over a study's store: every evidence item, then every receipt timeline, checked
// on worker threads (one per core: a pool per phase) and streamed back by appenders into
// proof_checks, then chain_checks, chain_entries and timeline_tools; the commitments' malformed
// lines into commitment_rejects and whom each binds into owned_commitments; every served passage
// matched against the frozen corpus (passage_corpus); then the registered systems and the
// policy's sellers, and by SQL the cross-links, whose record each piece of evidence belongs to
// (registered systems, reuse: SPEC §6.2), the served passages (frozen corpus text from a pinned
// seller: SPEC §12.4) and the sellers' inconsistencies (SPEC §13.1).
import type { DuckDBConnection } from '@duckdb/node-api';
import { commitmentBindings, decideSigners, indexCommitments, type CommitmentLine } from '../evidence/aer1/index.ts';
import { agentKeyring, type VerifyContextInputs } from '../evidence/task/index.ts';
import type { ExpectedTools, RegisteredSystem } from '../study/study.ts';
import { WorkerPool } from '../parallel/pool.ts';
import type { StageVerifyInit, StageVerifyInput, StageVerifyOutput } from './rows-worker.ts';
import { runSqlFile, TableAppender, tableColumns } from '../store/db.ts';
import { requireSameColumns } from '../store/named-row.ts';
import { execute, readCounts, readObjects, streamObjects } from '../store/query.ts';
import {
  evidencePassages,
  evidenceToVerify,
  OWNERSHIP_COUNTS,
  PASSAGE_COUNTS,
  receiptsToVerify,
  SET_REQUIRE_RECEIPTS,
  SHARD_STATUS_COUNTS,
  VERIFY_RECORD_RANGE,
  VERIFY_TOTALS,
} from '../store/statements.ts';
import { rejectRow } from '../ingest/rows.ts';
import { commitmentProblems, registeredAgentKeys } from './inputs.ts';
import { FactoredAppender, rowFactoring } from '../store/factored-appender.ts';
import { VERIFY_DERIVED_SQL, VERIFY_TABLES_SQL } from '../store/table-files.ts';
import { sellerMode, type SellerMode } from '../formats/trust-policy.ts';
import { matchPassages, type PassageRule } from './passage-corpus.ts';
import { shardOf, type ShardSpec } from './shard-share.ts';
import { loadShards, type CheckedShards } from './shard-merge.ts';
import {
  chainCheckRow,
  chainEntryRows,
  PROOF_CHECK_COLUMNS,
  PROOF_CHECK_VARYING_COLUMNS,
  ownedCommitmentRow,
  registeredSystemRow,
  timelineToolsRow,
  type RecordKey,
} from './rows.ts';

const WORKER = new URL('./rows-worker.ts', import.meta.url);
const BATCH = 256;

export interface VerifyCounts {
  evidence: number;
  chains: number;
  proofs_by_status: Record<string, number>;
  chains_by_status: Record<string, number>;
  /** Whose evidence is whose (SPEC §6.2): systems registered, and rows of evidence_ownership (proofs and timelines) EVIDENCE_NOT_BOUND, EVIDENCE_REUSED. */
  ownership?: { registered_systems: number; not_bound: number; reused: number };
  /** The trust policy's sellers (SPEC §12.4): the proofs EVIDENCE_SELLER_UNBOUND and EVIDENCE_SELLER_UNPINNED. */
  sellers?: { mode: SellerMode['mode']; unbound: number; unpinned: number };
  /** Every served passage, and those PASSAGE_NOT_IN_CORPUS (SPEC §12.4). */
  passages?: { served: number; not_in_corpus: number };
  /** The commitment lines read, and the malformed ones as commitmentProblems gives them. */
  commitments?: { lines: number; malformed: string[] };
}

/** What verifyStore verifies with: the trust material, the study window, and how to read the commitments (whose signers the systems' agent keys decide). */
export interface StoreVerifyInputs extends Omit<VerifyContextInputs, 'commitments' | 'agent_keys'> {
  /**
   * Called once the evidence items are verified, when the timelines are: only those are checked
   * against the commitments. 100,000 parsed lines (≈ 100 MiB) held by the main thread through
   * the evidence items let V8 grow its heap by ≈ 350 MiB more (docs/performance.md).
   */
  readCommitments: () => Promise<CommitmentLine[]>;
  /** The frozen corpus's sections and study.json passages.min_chars: what a passage must be to be proven served (SPEC §12.4). */
  passages: PassageRule;
  /** study.json systems: whose buyers bind a proof, whose agent keys sign a commitment (none outside a registered study). */
  systems?: readonly RegisteredSystem[];
  /** study.json protocol.expected_tools under each system's names (SPEC §13.3): every timeline is reconciled with them; absent: nothing is expected. */
  expectedTools?: ExpectedTools | null;
}

/** Streams the rows of the queries, one after the other, each row mapped by `toItem`, in batches of BATCH. */
export async function* rowBatches<T>(
  connection: DuckDBConnection,
  queries: Iterable<string>,
  toItem: (row: Record<string, unknown>) => T,
  keep: (row: Record<string, unknown>) => boolean = () => true,
): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for (const sql of queries) {
    for await (const rows of streamObjects(connection, sql)) {
      for (const row of rows) {
        if (!keep(row)) continue;
        batch.push(toItem(row));
        if (batch.length === BATCH) {
          yield batch;
          batch = [];
        }
      }
    }
  }
  if (batch.length > 0) yield batch;
}

/** `query` over consecutive ranges of VERIFY_RECORD_RANGE record ids from `first` to `last`: in turn, the rows one query sorted over them all would give. */
export function* byRecordRange(query: (after: number, upTo: number) => string, first: number, last: number): Generator<string> {
  for (let after = first - 1; after < last; after += VERIFY_RECORD_RANGE) yield query(after, Math.min(after + VERIFY_RECORD_RANGE, last));
}

function recordKey(row: Record<string, unknown>): RecordKey {
  return { record_id: Number(row.record_id), system_id: String(row.system_id), item_id: String(row.item_id), attempt: Number(row.attempt) };
}

const count = (tally: Record<string, number>, key: string) => void (tally[key] = (tally[key] ?? 0) + 1);

/**
 * The verify stage's work on an ingested store: every evidence item, then every timeline (against
 * the commitments), then the served passages, then the study's facts and the tables derived from
 * them (whose evidence is whose, what was served); returns what was counted.
 */
export async function verifyStore(
  store: { instance: { connect(): Promise<DuckDBConnection> }; connection: DuckDBConnection },
  inputs: StoreVerifyInputs,
  options: { progress: (message: string, done?: number, total?: number) => void; threads?: number; shards?: CheckedShards },
): Promise<VerifyCounts> {
  const { connection } = store;
  // Verified here, or by `verify --shard` on other machines: the same rows either way (verify/shard-merge.ts).
  const { counts, commitments } = options.shards
    ? await loadShardRows(store, inputs, options.shards)
    : await verifyPerItem(store, inputs, options, null);
  const reader = await store.instance.connect();
  try {
    options.progress('verify: matching served passages against the frozen corpus');
    const [totals] = await readObjects(connection, VERIFY_TOTALS);
    const first = Number(totals!.first_record);
    const last = Number(totals!.last_record);
    await matchPassages(connection, reader, inputs.passages, byRecordRange(evidencePassages, first, last));
  } finally {
    reader.closeSync();
  }
  await recordStudyFacts(connection, inputs, counts);
  counts.commitments = commitments;
  return counts;
}

/** The per-item rows verify loads instead of checking them: Parquet files of `verify --shard`, checked (verify/shard-merge.ts). */
async function loadShardRows(
  store: { connection: DuckDBConnection },
  inputs: StoreVerifyInputs,
  shards: CheckedShards,
): Promise<{ counts: VerifyCounts; commitments: NonNullable<VerifyCounts['commitments']> }> {
  const { connection } = store;
  await runSqlFile(connection, VERIFY_TABLES_SQL);
  // The commitments' rejects and bindings span records: read here as without shards.
  const started = await startTimelines(connection, inputs, null);
  await loadShards(connection, shards);
  const counts: VerifyCounts = { evidence: 0, chains: 0, proofs_by_status: {}, chains_by_status: {} };
  for (const row of await readObjects(connection, SHARD_STATUS_COUNTS)) {
    const tally = row.kind === 'evidence' ? counts.proofs_by_status : counts.chains_by_status;
    tally[String(row.status)] = Number(row.n);
    if (row.kind === 'evidence') counts.evidence += Number(row.n);
    else counts.chains += Number(row.n);
  }
  return { counts, commitments: started.commitments };
}

/**
 * The per-item checks alone (every evidence item, then every timeline, against the commitments)
 * into proof_checks, chain_checks, chain_entries and timeline_tools; with `share`, only the
 * records shardOf gives that index (`verify --shard`).
 */
export async function verifyPerItem(
  store: { instance: { connect(): Promise<DuckDBConnection> }; connection: DuckDBConnection },
  inputs: StoreVerifyInputs,
  options: { progress: (message: string, done?: number, total?: number) => void; threads?: number },
  share: ShardSpec | null,
): Promise<{ counts: VerifyCounts; commitments: NonNullable<VerifyCounts['commitments']> }> {
  const { connection } = store;
  await runSqlFile(connection, VERIFY_TABLES_SQL);
  const counts: VerifyCounts = { evidence: 0, chains: 0, proofs_by_status: {}, chains_by_status: {} };
  const proofColumns = (await tableColumns(connection, 'proof_checks')).map((c) => c.name);
  requireSameColumns('proof_checks', proofColumns, PROOF_CHECK_COLUMNS);
  const proofFactoring = await rowFactoring(connection, 'proof_checks', PROOF_CHECK_VARYING_COLUMNS);
  const startPool: StartPool = (context) =>
    new WorkerPool<StageVerifyInit, StageVerifyInput, StageVerifyOutput>({
      module: WORKER,
      init: { context, proofFactoring, proofColumns },
      ...(options.threads ? { threads: options.threads } : {}),
    });
  // The totals let a terminal show how far verify is and when it will be done.
  const [totals] = await readObjects(connection, VERIFY_TOTALS);
  if (totals === undefined) throw new Error('VERIFY_TOTALS gave no row');
  const run: Phase = {
    connection,
    reader: await store.instance.connect(),
    inputs,
    counts,
    startPool,
    progress: options.progress,
    first: Number(totals.first_record),
    last: Number(totals.last_record),
    pool: null,
    keep: share === null ? () => true : (row) => shardOf(recordKey(row), share.count) === share.index,
  };
  try {
    await verifyEvidenceItems(run, Number(totals.evidence), proofFactoring);
    await verifyTimelines(run, Number(totals.chains));
  } finally {
    run.reader.closeSync();
    await run.pool?.close();
  }
  return { counts, commitments: run.commitments! };
}

type Pool = WorkerPool<StageVerifyInit, StageVerifyInput, StageVerifyOutput>;
type StartPool = (context: VerifyContextInputs) => Pool;

/** What the phases of one verifyStore share: the store, a second connection that streams the rows, the counts, the pool running now. */
interface Phase {
  connection: DuckDBConnection;
  reader: DuckDBConnection;
  inputs: StoreVerifyInputs;
  counts: VerifyCounts;
  startPool: StartPool;
  progress: (message: string, done?: number, total?: number) => void;
  first: number;
  last: number;
  pool: Pool | null;
  /** Whether a record's items are this run's to check (`verify --shard`: its share). */
  keep: (row: Record<string, unknown>) => boolean;
  /** The commitment lines read for the timelines (counted last). */
  commitments?: VerifyCounts['commitments'];
}

/** Every evidence item into proof_checks, on workers that go without the commitments (≈ 110 MiB a worker at 100,000 lines). */
async function verifyEvidenceItems(run: Phase, total: number, proofFactoring: Awaited<ReturnType<typeof rowFactoring>>): Promise<void> {
  const proofs = await FactoredAppender.create(run.connection, 'proof_checks', proofFactoring);
  run.progress('verify: 0 evidence items', 0, total);
  // A pool starts only for work.
  if (total > 0) run.pool = run.startPool({ trust: run.inputs.trust, window: run.inputs.window, commitments: [] });
  await run.pool?.mapOrdered(
    rowBatches(
      run.reader,
      byRecordRange(evidenceToVerify, run.first, run.last),
      (row): StageVerifyInput => ({
        key: { ...recordKey(row), evidence_index: Number(row.evidence_index) },
        task: {
          kind: 'evidence',
          key: `${String(row.record_id)}/${String(row.evidence_index)}`,
          proof: String(row.proof),
          request: (row.request as string | null) ?? null,
          response: (row.response as string | null) ?? null,
          disclosure: (row.disclosure as string | null) ?? null,
          transparency_log_entry: (row.tlog_entry as string | null) ?? null,
        },
      }),
      run.keep,
    ),
    (row) => row,
    (results) => {
      for (const outcome of results) {
        if (outcome.kind !== 'evidence') throw new Error('verify: a worker answered an evidence task with a chain result');
        proofs.append(outcome.row);
        count(run.counts.proofs_by_status, outcome.status);
      }
      run.counts.evidence += results.length;
      run.progress(`verify: ${run.counts.evidence} evidence items`, run.counts.evidence, total);
    },
  );
  await proofs.close();
  await run.pool?.close();
  run.pool = null;
}

/** Every AER-1 timeline into chain_checks and chain_entries, against the commitments, read only now (startTimelines). */
async function verifyTimelines(run: Phase, total: number): Promise<void> {
  const started = await startTimelines(run.connection, run.inputs, total > 0 ? run.startPool : null);
  run.pool = started.pool;
  run.commitments = started.commitments;
  const chains = await TableAppender.declared(run.connection, 'chain_checks');
  const entries = await TableAppender.declared(run.connection, 'chain_entries');
  const expected = run.inputs.expectedTools ?? null;
  const tools = await TableAppender.declared(run.connection, 'timeline_tools');
  run.progress('verify: 0 receipt chains', 0, total);
  await run.pool?.mapOrdered(
    rowBatches(
      run.reader,
      byRecordRange(receiptsToVerify, run.first, run.last),
      (row): StageVerifyInput => ({
        key: { ...recordKey(row), evidence_index: 0 },
        task: { kind: 'chain', key: String(row.record_id), chain: String(row.chain), owner: String(row.system_id) },
      }),
      run.keep,
    ),
    (row) => row,
    (results, batch) => {
      results.forEach((outcome, i) => {
        if (outcome.kind !== 'chain') throw new Error('verify: a worker answered a chain task with an evidence result');
        const k = batch[i]!.key;
        chains.appendNamed(chainCheckRow(k, outcome.result));
        for (const row of chainEntryRows(k.record_id, outcome.result)) entries.appendNamed(row);
        // Reconciled apart from the anchoring (SPEC §13.3): the status above stays what it is.
        if (expected !== null) tools.appendNamed(timelineToolsRow(k, outcome.result, expected));
        count(run.counts.chains_by_status, outcome.result.status);
      });
      run.counts.chains += results.length;
      run.progress(`verify: ${run.counts.chains} receipt chains`, run.counts.chains, total);
    },
  );
  chains.close();
  entries.close();
  tools.close();
}

/** The study's registered systems, the policy's sellers and receipts rule, then the derived tables (whose evidence is whose, what was served) and their counts. */
async function recordStudyFacts(connection: DuckDBConnection, inputs: StoreVerifyInputs, counts: VerifyCounts): Promise<void> {
  const systems = inputs.systems ?? [];
  const registered = await TableAppender.declared(connection, 'registered_systems');
  for (const s of systems) registered.appendNamed(registeredSystemRow(s));
  registered.close();
  const sellers = sellerMode(inputs.trust.policy);
  if (sellers.mode !== 'missing') {
    const policy = await TableAppender.declared(connection, 'seller_policy');
    policy.appendNamed({ any_seller: sellers.mode === 'any', sellers: sellers.mode === 'pinned' ? [...sellers.sellers] : [] });
    policy.close();
  }
  await execute(connection, SET_REQUIRE_RECEIPTS, [inputs.trust.policy.require_receipts]);
  for (const file of VERIFY_DERIVED_SQL) await runSqlFile(connection, file);
  const [notBound, reused, sellerUnbound, sellerUnpinned] = await readCounts(connection, OWNERSHIP_COUNTS);
  counts.ownership = { registered_systems: systems.length, not_bound: Number(notBound), reused: Number(reused) };
  counts.sellers = { mode: sellers.mode, unbound: Number(sellerUnbound), unpinned: Number(sellerUnpinned) };
  const [served, notInCorpus] = await readCounts(connection, PASSAGE_COUNTS);
  counts.passages = { served: Number(served), not_in_corpus: Number(notInCorpus) };
}

/**
 * Reads the commitments, appends the malformed ones to commitment_rejects and starts the
 * timelines' pool with them (when `startPool` is given: there are timelines), in a function of its
 * own so that nothing keeps the parsed lines once the workers have their copy.
 */
async function startTimelines<P>(
  connection: DuckDBConnection,
  inputs: StoreVerifyInputs,
  startPool: ((context: VerifyContextInputs) => P) | null,
): Promise<{ pool: P | null; commitments: { lines: number; malformed: string[] } }> {
  const lines = await inputs.readCommitments();
  const rejects = await TableAppender.declared(connection, 'commitment_rejects');
  for (const l of lines) {
    if (l.ok) continue;
    rejects.appendNamed(
      rejectRow({
        file: l.file,
        line_no: l.line,
        byte_offset: l.byte_offset,
        line_sha256: l.line_sha256,
        reason_code: 'COMMITMENT_MALFORMED',
        column_no: null,
        detail: l.problems.join('; '),
      }),
    );
  }
  rejects.close();
  // Whom each line binds (SPEC §12.3): every signature checked once, here, against the registered
  // systems' agent keys; the workers get the signers, so they need no key.
  const decided = decideSigners(lines, agentKeyring(registeredAgentKeys(inputs.systems ?? [])));
  const owned = await TableAppender.declared(connection, 'owned_commitments');
  for (const b of commitmentBindings(indexCommitments(decided))) owned.appendNamed(ownedCommitmentRow(b));
  owned.close();
  return {
    pool: startPool ? startPool({ trust: inputs.trust, window: inputs.window, commitments: decided }) : null,
    commitments: { lines: lines.length, malformed: commitmentProblems(lines) },
  };
}
