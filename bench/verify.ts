// npm run bench: verification throughput on this machine, measured in one run (not a test).
//
// Generates (once, cached under work/bench/) a synthetic study of N evidence items, half with
// RFC 3161 tokens, and N/2 more batch-anchored (one token per batch of 64 proofs, as proof-spec
// 3.x issues them), as DuckDB stores shaped like ingest's; then runs the verify stage's own code
// (DuckDB stream → worker threads → Appender) on each set. For the batch-anchored set it also
// counts, in this thread over its first 6,400 proofs, the tokens actually verified (a token shared
// by a batch is verified once: pipeline/evidence/timestamp/verified-once.ts). In the same run it measures the raw
// single-core `crypto.verify` Ed25519 rate (before and after, averaged: this machine's speed drifts
// by ±20% within minutes), the same loop on two threads (the ceiling of any verifier here), and
// the floor (bench/floor-worker.ts: the least work any verifier must do per proof, through the same
// stream and pool). CPU per proof is the whole process's, in units of one Ed25519 verify. Then
// `prereg verify DIR --json` (the compiled CLI) on 4,000 and 20,000 files without tokens and
// 4,000 with one each, side by side with the reference peer (bench/files.ts, bench/peer.ts).
//
//   npm run bench [-- --items 100000] [--seconds 2] [--rounds 3] [--only files|stage] [--dir work/bench] [--regenerate]
import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { WorkerPool } from '../pipeline/parallel/pool.ts';
import { buildStoreAtomically, openStore, runSqlFile, TABLES_SQL_PATH, TableAppender } from '../pipeline/store/db.ts';
import { UNBOUNDED_WINDOW, verifyContextInputs } from '../pipeline/verify/inputs.ts';
import { rowBatches, verifyStore } from '../pipeline/verify/study-verify.ts';
import { ed25519Measure } from './ed25519-rate.mjs';
import { describeFigure, filesAgainstPeer, type FilesFigure, type FilesSet } from './files.ts';
import { ensurePeer } from './peer.ts';
import { loadavg } from 'node:os';
import type { FloorInit, FloorTask } from './floor-worker.ts';
import { BATCH_SIZE, type GenerateInit, type GeneratedEvidence, type GenerateTask, type TokenKind } from './generate-worker.ts';
import { timestampVerificationCount } from '../pipeline/evidence/timestamp/index.ts';
import { buildVerifyContext, runVerifyTask } from '../pipeline/evidence/task/index.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const KEY = join(ROOT, 'test/fixtures/keys/TEST-ONLY-arkforge-2026.key.pem');

const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '100000' },
    /** Length of each raw Ed25519 measurement. */
    seconds: { type: 'string', default: '2' },
    /** Where the generated stores are cached. */
    dir: { type: 'string', default: join(ROOT, 'work/bench') },
    regenerate: { type: 'boolean' },
    /** Interleaved rounds of `prereg verify DIR` and the reference peer per set (the best counts). */
    rounds: { type: 'string', default: '3' },
    /** `files`: only `prereg verify DIR` against the peer; `stage`: only the rest; default both. */
    only: { type: 'string', default: 'all' },
  },
});
const DIR = values.dir;
const SECONDS = Number(values.seconds);
const total = Number(values.items);
const half = Math.floor(total / 2);

async function generate(path: string, count: number, token: TokenKind): Promise<void> {
  if (existsSync(path) && !values.regenerate) return;
  rmSync(path, { force: true });
  const started = performance.now();
  const pool = new WorkerPool<GenerateInit, GenerateTask, GeneratedEvidence>({
    module: new URL('./generate-worker.ts', import.meta.url),
    init: { keyPem: readFileSync(KEY, 'utf8') },
  });
  await buildStoreAtomically(path, async (store) => {
    await runSqlFile(store.connection, TABLES_SQL_PATH);
    const records = await TableAppender.create(store.connection, 'records');
    const evidence = await TableAppender.create(store.connection, 'evidence');
    const source = async function* () {
      // Whole batches per chunk: a batch-anchored token covers BATCH_SIZE consecutive indices.
      const chunk = BATCH_SIZE * 8;
      for (let i = 0; i < count; i += chunk)
        yield Array.from({ length: Math.min(chunk, count - i) }, (_, j): GenerateTask => ({ index: i + j, token }));
    };
    let done = 0;
    await pool.mapOrdered(
      source(),
      (x) => x,
      (rows) => {
        for (const r of rows) {
          records.append([
            r.index + 1,
            'sys-bench',
            `b-${r.index}`,
            1,
            'bench.jsonl',
            r.index + 1,
            0,
            '',
            '',
            false,
            false,
            1,
            false,
            null,
          ]);
          evidence.append([r.index + 1, 0, r.proof, r.request, r.response, null, null]);
        }
        done += rows.length;
        process.stderr.write(`\rgenerating (tokens: ${token}): ${done}/${count}`);
      },
    );
    records.close();
    evidence.close();
  });
  await pool.close();
  process.stderr.write(` (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
}

/** Raw single-core Ed25519 verification, on this thread: wall rate and CPU per verify. */
function rawEd25519(seconds = SECONDS): { rate: number; cpuMicros: number } {
  return ed25519Measure(readFileSync(KEY, 'utf8'), seconds);
}

/**
 * The same loop on `threads` worker threads at once: the total rate, as every verify counted over
 * the span from the first thread's start to the last one's end (on a loaded machine the threads'
 * own windows need not overlap, and adding their rates would count one core twice).
 */
async function threadedEd25519Rate(threads: number, seconds = SECONDS): Promise<number> {
  const workerData = { ed25519Rate: true, keyPem: readFileSync(KEY, 'utf8'), seconds };
  type Measured = { count: number; startedAt: number; endedAt: number };
  const runs = await Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise<Measured>((resolve, reject) => {
          const worker = new Worker(new URL('./ed25519-rate.mjs', import.meta.url), { workerData });
          worker.once('message', (m: Measured) => void worker.terminate().then(() => resolve(m)));
          worker.once('error', reject);
        }),
    ),
  );
  const span = Math.max(...runs.map((r) => r.endedAt)) - Math.min(...runs.map((r) => r.startedAt));
  return runs.reduce((a, r) => a + r.count, 0) / (span / 1000);
}

interface Timed {
  rate: number;
  /** Process CPU (all threads) per proof, µs. */
  cpuPerProof: number;
}

async function timed(count: () => Promise<number>): Promise<Timed> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const n = await count();
  const used = process.cpuUsage(cpu);
  return { rate: n / ((performance.now() - start) / 1000), cpuPerProof: (used.user + used.system) / n };
}

function benchTrust() {
  const trust = verifyContextInputs(join(ROOT, 'preregistration/trust'), UNBOUNDED_WINDOW, []);
  trust.trust.policy = { ...trust.trust.policy, require_tsa_token: false, require_receipts: false };
  return trust;
}

function timeVerify(path: string, label: string): Promise<Timed> {
  return timed(async () => {
    const store = await openStore(path);
    try {
      const trust = benchTrust();
      const counts = await verifyStore(
        store,
        { trust: trust.trust, window: trust.window, readCommitments: async () => [], passages: { sections: new Map(), min_chars: 80 } },
        { progress: (m) => process.stderr.write(`\r${label}: ${m}   `) },
      );
      process.stderr.write('\n');
      return counts.evidence;
    } finally {
      store.close();
    }
  });
}

/** Tokens this thread actually verifies over the first `limit` proofs of a store, verified in-process. */
async function tokensVerified(path: string, limit: number): Promise<{ proofs: number; tokens: number }> {
  const store = await openStore(path, { readOnly: true });
  try {
    const ctx = buildVerifyContext(benchTrust());
    const rows = (
      await store.connection.runAndReadAll(
        `SELECT proof_json::VARCHAR AS proof, request_json::VARCHAR AS request, response_json::VARCHAR AS response FROM evidence ORDER BY record_id LIMIT ${limit}`,
      )
    ).getRowObjects();
    const before = timestampVerificationCount();
    for (const [i, row] of rows.entries()) {
      const outcome = await runVerifyTask(
        {
          kind: 'evidence',
          key: String(i),
          proof: String(row.proof),
          request: String(row.request),
          response: String(row.response),
          disclosure: null,
          transparency_log_entry: null,
        },
        ctx,
      );
      if (outcome.result.status !== 'VERIFIED') throw new Error(`bench: batch-anchored proof ${i} is ${outcome.result.status}`);
    }
    return { proofs: rows.length, tokens: timestampVerificationCount() - before };
  } finally {
    store.close();
  }
}

/** The first `count` evidence items of a store as files `e<n>.json` in a directory (made once). */
async function evidenceFiles(path: string, count: number, dir: string): Promise<string> {
  if (existsSync(dir) && !values.regenerate) return dir;
  const store = await openStore(path, { readOnly: true });
  const tmp = `${dir}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    const rows = (
      await store.connection.runAndReadAll(
        `SELECT proof_json::VARCHAR AS proof, request_json::VARCHAR AS request, response_json::VARCHAR AS response FROM evidence ORDER BY record_id LIMIT ${count}`,
      )
    ).getRowObjects();
    rows.forEach((row, i) => {
      writeFileSync(
        join(tmp, `e${String(i).padStart(6, '0')}.json`),
        `{"proof":${row.proof},"request":${row.request},"response":${row.response}}`,
      );
    });
  } finally {
    store.close();
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return dir;
}

/** A trust directory like the example's whose policy requires neither tokens nor receipts (made once). */
function benchTrustDir(): string {
  const dir = join(DIR, 'trust-bench');
  if (existsSync(dir) && !values.regenerate) return dir;
  const tmp = `${dir}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  cpSync(join(ROOT, 'preregistration/trust'), tmp, { recursive: true });
  const policy = JSON.parse(readFileSync(join(tmp, 'policy.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(tmp, 'policy.json'), `${JSON.stringify({ ...policy, require_tsa_token: false, require_receipts: false }, null, 2)}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return dir;
}

/** The floor: bench/floor-worker.ts over the same rows, stream and pool as the stage. */
function timeFloor(path: string): Promise<Timed> {
  return timed(async () => {
    const store = await openStore(path, { readOnly: true });
    const jwk = createPublicKey(createPrivateKey(readFileSync(KEY))).export({ format: 'jwk' });
    const pool = new WorkerPool<FloorInit, FloorTask, boolean>({
      module: new URL('./floor-worker.ts', import.meta.url),
      init: { x: String(jwk.x) },
    });
    try {
      const batches = rowBatches(
        store.connection,
        [
          `SELECT e.proof_json::VARCHAR AS proof, e.request_json::VARCHAR AS request, e.response_json::VARCHAR AS response
         FROM evidence e JOIN records r USING (record_id) ORDER BY e.record_id, e.evidence_index`,
        ],
        (row): FloorTask => ({ proof: String(row.proof), request: String(row.request), response: String(row.response) }),
      );
      let n = 0;
      await pool.mapOrdered(
        batches,
        (task) => task,
        (results) => {
          for (const ok of results) if (!ok) throw new Error('bench: the floor found a proof that does not verify');
          n += results.length;
        },
      );
      return n;
    } finally {
      await pool.close();
      store.close();
    }
  });
}

mkdirSync(DIR, { recursive: true });
// The cache is keyed by the table definitions: a store of another shape is regenerated.
const shape = createHash('sha256').update(readFileSync(TABLES_SQL_PATH)).digest('hex').slice(0, 12);
const noToken = join(DIR, `no-token-${half}-${shape}.duckdb`);
const withToken = join(DIR, `with-token-${total - half}-${shape}.duckdb`);
const batchAnchored = join(DIR, `batch-${BATCH_SIZE}-${half}-${shape}.duckdb`);
await generate(noToken, half, 'none');
await generate(withToken, total - half, 'own');
await generate(batchAnchored, half, 'batch');

// prereg verify DIR --json against the reference peer (bench/files.ts): the issue-26 targets.
async function filesFigures(): Promise<FilesFigure[]> {
  ensurePeer();
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { stdio: 'inherit' }); // the CLI runs dist/
  const big = Math.min(20000, half);
  const small = Math.min(4000, half, total - half);
  const sets: FilesSet[] = [
    {
      label: `${fmt(small)} items, no tokens`,
      dir: await evidenceFiles(noToken, small, join(DIR, `files-no-token-${small}-${shape}`)),
      count: small,
      target: 1, // no participant waits longer than with a short script
      cpuTarget: 1.5,
    },
    {
      label: `${fmt(big)} items, no tokens`,
      dir: await evidenceFiles(noToken, big, join(DIR, `files-no-token-${big}-${shape}`)),
      count: big,
      target: 2,
      cpuTarget: 1.5,
    },
    {
      label: `${fmt(small)} items, one RFC 3161 token each`,
      dir: await evidenceFiles(withToken, small, join(DIR, `files-with-token-${small}-${shape}`)),
      count: small,
      target: 10,
    },
  ];
  const root = join(DIR, 'no-study'); // no study.json: the window is unbounded
  mkdirSync(root, { recursive: true });
  return filesAgainstPeer(sets, {
    trustDir: benchTrustDir(),
    root,
    timeFile: join(DIR, 'time-verify-files.txt'),
    rounds: Number(values.rounds),
    log: (l) => process.stderr.write(`${l}\n`),
  });
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const loadBefore = loadavg()[0]!;
if (values.only === 'files') {
  // One Ed25519 verify's CPU, before and after the files (prereg's CPU per item is counted in it).
  const edBefore = rawEd25519().cpuMicros;
  const figures = await filesFigures();
  const edMicros = (edBefore + rawEd25519().cpuMicros) / 2;
  console.log(
    `machine: ${availableParallelism()} cores, Node ${process.version}; load average ${loadBefore.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end; one Ed25519 verify ${edMicros.toFixed(1)} µs CPU`,
  );
  for (const f of figures) console.log(describeFigure(f, edMicros));
  console.log(JSON.stringify({ load_start: Number(loadBefore.toFixed(2)), ed25519_cpu_us: Number(edMicros.toFixed(1)), files: figures }));
  process.exit(0);
}
const before = rawEd25519();
const rawBefore = before.rate;
const twoThreads = await threadedEd25519Rate(2);
const floor = await timeFloor(noToken);
const plain = await timeVerify(noToken, 'without tokens');
const tokens = await timeVerify(withToken, 'with tokens');
const batched = await timeVerify(batchAnchored, 'batch-anchored');
const batchTokens = await tokensVerified(batchAnchored, 6400);
const files = values.only === 'stage' ? [] : await filesFigures();
const after = rawEd25519();
const rawAfter = after.rate;
const raw = (rawBefore + rawAfter) / 2;
// CPU per proof is counted in units of one verify's CPU (not its wall time: the machine may be loaded).
const edMicros = (before.cpuMicros + after.cpuMicros) / 2;
const ratio = (n: number) => (n / raw).toFixed(2);
const cpu = (t: Timed) => `${fmt(t.cpuPerProof)} µs CPU/proof = ${(t.cpuPerProof / edMicros).toFixed(2)} Ed25519 verifies`;
console.log(
  `machine: ${availableParallelism()} cores, Node ${process.version}; load average ${loadBefore.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end (wall rates are inflated by load; CPU per proof is not)`,
);
console.log(
  `raw single-core crypto.verify Ed25519: ${fmt(raw)} /s (before ${fmt(rawBefore)}, after ${fmt(rawAfter)}); ${edMicros.toFixed(1)} µs CPU per verify`,
);
console.log(`Ed25519 alone on 2 threads: ${fmt(twoThreads)} /s (ratio ${ratio(twoThreads)}: the ceiling of any verifier here)`);
console.log(
  `floor, ${fmt(half)} proofs (parse, 3 hashes, Ed25519; no checks, no rows): ${fmt(floor.rate)} /s (ratio ${ratio(floor.rate)}); ${cpu(floor)}`,
);
const perProof = (t: Timed) => t.cpuPerProof / edMicros;
console.log(
  `verify stage, ${fmt(half)} proofs without tokens: ${fmt(plain.rate)} proofs/s (ratio ${ratio(plain.rate)}); ${cpu(plain)} (target <= 1.7)`,
);
console.log(
  `verify stage, ${fmt(total - half)} proofs with one RFC 3161 token each: ${fmt(tokens.rate)} proofs/s; ${cpu(tokens)} (target <= 3.0)`,
);
console.log(
  `verify stage, ${fmt(half)} batch-anchored proofs (batches of ${BATCH_SIZE}): ${fmt(batched.rate)} proofs/s; ${cpu(batched)} (target <= 1.8); tokens actually verified: ${fmt(batchTokens.tokens)} for the first ${fmt(batchTokens.proofs)} proofs, in one thread`,
);
for (const f of files) console.log(describeFigure(f, edMicros));
console.log(
  JSON.stringify({
    items: total,
    load_start: Number(loadBefore.toFixed(2)),
    ed25519_cpu_us: Number(edMicros.toFixed(1)),
    raw_ed25519_per_s: Math.round(raw),
    two_thread_ed25519_per_s: Math.round(twoThreads),
    floor_per_s: Math.round(floor.rate),
    no_token_per_s: Math.round(plain.rate),
    ratio: Number((plain.rate / raw).toFixed(3)),
    no_token_cpu_us_per_proof: Math.round(plain.cpuPerProof),
    with_token_per_s: Math.round(tokens.rate),
    with_token_cpu_us_per_proof: Math.round(tokens.cpuPerProof),
    batch_per_s: Math.round(batched.rate),
    batch_cpu_us_per_proof: Math.round(batched.cpuPerProof),
    batch_tokens_verified: batchTokens.tokens,
    batch_tokens_proofs: batchTokens.proofs,
    floor_ed25519_per_proof: Number(perProof(floor).toFixed(2)),
    no_token_ed25519_per_proof: Number(perProof(plain).toFixed(2)),
    with_token_ed25519_per_proof: Number(perProof(tokens).toFixed(2)),
    batch_ed25519_per_proof: Number(perProof(batched).toFixed(2)),
    files,
  }),
);
