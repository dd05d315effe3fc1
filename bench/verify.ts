// npm run bench: verification throughput on this machine, measured in one run (not a test).
//
// Generates (once, cached under work/bench/) a synthetic study of N evidence items, half with
// RFC 3161 tokens, as DuckDB stores shaped like ingest's; then runs the verify stage's own code
// (DuckDB stream → worker threads → Appender) on each half, and measures in the same run the raw
// single-core `crypto.verify` Ed25519 rate. Prints proofs/s, the raw rate and their ratio.
//
//   npm run bench [-- --items 100000]
import { createHash, createPublicKey, createPrivateKey, sign, verify as edVerify } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { WorkerPool } from '../pipeline/parallel/pool.ts';
import { buildStoreAtomically, openStore, runSqlFile, TABLES_SQL_PATH, TableAppender } from '../pipeline/store/db.ts';
import { UNBOUNDED_WINDOW, verifyContextInputs } from '../pipeline/verify/inputs.ts';
import { verifyStore } from '../pipeline/verify/study-verify.ts';
import type { GenerateInit, GeneratedEvidence } from './generate-worker.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIR = join(ROOT, 'work/bench');
const KEY = join(ROOT, 'test/fixtures/keys/TEST-ONLY-arkforge-2026.key.pem');

const { values } = parseArgs({ options: { items: { type: 'string', default: '100000' }, regenerate: { type: 'boolean' } } });
const total = Number(values.items);
const half = Math.floor(total / 2);

async function generate(path: string, count: number, withToken: boolean): Promise<void> {
  if (existsSync(path) && !values.regenerate) return;
  rmSync(path, { force: true });
  const started = performance.now();
  const pool = new WorkerPool<GenerateInit, { index: number; withToken: boolean }, GeneratedEvidence>({
    module: new URL('./generate-worker.ts', import.meta.url),
    init: { keyPem: readFileSync(KEY, 'utf8') },
  });
  await buildStoreAtomically(path, async (store) => {
    await runSqlFile(store.connection, TABLES_SQL_PATH);
    const records = await TableAppender.create(store.connection, 'records');
    const evidence = await TableAppender.create(store.connection, 'evidence');
    const source = async function* () {
      for (let i = 0; i < count; i += 500) yield Array.from({ length: Math.min(500, count - i) }, (_, j) => ({ index: i + j, withToken }));
    };
    let done = 0;
    await pool.mapOrdered(source(), (x) => x, (rows) => {
      for (const r of rows) {
        records.append([r.index + 1, 'sys-bench', `b-${r.index}`, 1, 'bench.jsonl', r.index + 1, 0, '', '', false, false, 1, false]);
        evidence.append([r.index + 1, 0, r.proof, r.request, r.response, null, null]);
      }
      done += rows.length;
      process.stderr.write(`\rgenerating ${withToken ? 'with' : 'without'} tokens: ${done}/${count}`);
    });
    records.close();
    evidence.close();
  });
  await pool.close();
  process.stderr.write(` (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
}

/** Raw single-core Ed25519 verification rate: crypto.verify with an imported KeyObject. */
function rawEd25519Rate(seconds = 3): number {
  const key = createPrivateKey(readFileSync(KEY));
  const pub = createPublicKey(key);
  const msgs = Array.from({ length: 256 }, (_, i) => Buffer.from(`${i}`.padStart(64, '0')));
  const sigs = msgs.map((m) => sign(null, m, key));
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    for (let i = 0; i < msgs.length; i++) if (!edVerify(null, msgs[i]!, pub, sigs[i]!)) throw new Error('bench: signature did not verify');
    n += msgs.length;
  }
  return n / ((performance.now() - start) / 1000);
}

async function timeVerify(path: string, label: string): Promise<{ rate: number; counts: unknown }> {
  const store = await openStore(path);
  try {
    const trust = verifyContextInputs(join(ROOT, 'preregistration/trust'), UNBOUNDED_WINDOW, []);
    trust.trust.policy = { ...trust.trust.policy, require_tsa_token: false, require_receipts: false };
    const start = performance.now();
    const counts = await verifyStore(store.instance, store.connection, trust, false, (m) => process.stderr.write(`\r${label}: ${m}   `));
    const seconds = (performance.now() - start) / 1000;
    process.stderr.write('\n');
    return { rate: (counts as { evidence: number }).evidence / seconds, counts };
  } finally {
    store.close();
  }
}

mkdirSync(DIR, { recursive: true });
// The cache is keyed by the table definitions: a store of another shape is regenerated.
const shape = createHash('sha256').update(readFileSync(TABLES_SQL_PATH)).digest('hex').slice(0, 12);
const noToken = join(DIR, `no-token-${half}-${shape}.duckdb`);
const withToken = join(DIR, `with-token-${total - half}-${shape}.duckdb`);
await generate(noToken, half, false);
await generate(withToken, total - half, true);

const raw = rawEd25519Rate();
const plain = await timeVerify(noToken, 'without tokens');
const tokens = await timeVerify(withToken, 'with tokens');
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(`machine: ${availableParallelism()} cores, Node ${process.version}`);
console.log(`raw single-core crypto.verify Ed25519: ${fmt(raw)} /s`);
console.log(`verify stage, ${fmt(half)} proofs without tokens: ${fmt(plain.rate)} proofs/s  (ratio to raw single-core: ${(plain.rate / raw).toFixed(2)}; target >= 1.50)`);
console.log(`verify stage, ${fmt(total - half)} proofs with RFC 3161 tokens: ${fmt(tokens.rate)} proofs/s`);
console.log(JSON.stringify({ raw_ed25519_per_s: Math.round(raw), no_token_per_s: Math.round(plain.rate), ratio: Number((plain.rate / raw).toFixed(3)), with_token_per_s: Math.round(tokens.rate), items: total }));
