// Helpers of the emit tests: a copy of the example study with a small, hand-made DuckDB store
// holding the tables emit reads (the score stage's result tables and the base tables), rows
// inserted deliberately out of order, with unicode, NULLs, lists and doubles.
import { DuckDBInstance } from '@duckdb/node-api';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OperatorKeyPems } from '../../pipeline/emit/sign.ts';
import { TABLES_SQL_PATH } from '../../pipeline/store/db.ts';
import { copyExampleStudy, PROJECT_ROOT } from '../support/cli.ts';

export const KEY_DIR = join(PROJECT_ROOT, 'test/fixtures/keys');
export const KEY_FILES = {
  operatorKey: join(KEY_DIR, 'TEST-ONLY-operator.key.pem'),
  operatorPub: join(KEY_DIR, 'TEST-ONLY-operator.pub.pem'),
  operatorCert: join(KEY_DIR, 'TEST-ONLY-operator.cert.pem'),
  cmsKey: join(KEY_DIR, 'TEST-ONLY-operator-cms.key.pem'),
  cmsCert: join(KEY_DIR, 'TEST-ONLY-operator-cms.cert.pem'),
};

export const KEYS: OperatorKeyPems = {
  operatorKey: readFileSync(KEY_FILES.operatorKey, 'utf8'),
  cmsKey: readFileSync(KEY_FILES.cmsKey, 'utf8'),
  cmsCert: readFileSync(KEY_FILES.cmsCert, 'utf8'),
};

/** The CLI flags giving the TEST-ONLY keys. */
export const KEY_ARGS = ['--operator-key', KEY_FILES.operatorKey, '--cms-key', KEY_FILES.cmsKey, '--cms-cert', KEY_FILES.cmsCert];

const SCHEMA = `
CREATE TABLE assertions (
  record_id BIGINT, system_id VARCHAR, item_id VARCHAR, attempt INTEGER, assertion_id VARCHAR,
  kind VARCHAR, ref VARCHAR, start_offset INTEGER, end_offset INTEGER, amount DOUBLE, context VARCHAR[]);
CREATE TABLE proof_checks (
  record_id BIGINT, evidence_index INTEGER, status VARCHAR, reason_codes VARCHAR[], checks JSON,
  proof_timestamp TIMESTAMPTZ);
CREATE TABLE chain_checks (record_id BIGINT, job_id VARCHAR, status VARCHAR, reason_codes VARCHAR[], entry_count INTEGER);
CREATE TABLE registered_systems (system_id VARCHAR, buyer_fingerprints VARCHAR[], agent_identities VARCHAR[], affiliated BOOLEAN, replicate_of VARCHAR);
CREATE TABLE evidence_reuse (kind VARCHAR, value VARCHAR, records VARCHAR[], systems VARCHAR[], claimed_by VARCHAR[], cancels BOOLEAN);
CREATE TABLE evidence_ownership (record_id BIGINT, evidence_kind VARCHAR, evidence_index INTEGER, system_id VARCHAR, status VARCHAR, reason_codes VARCHAR[]);
CREATE TABLE served_passages (system_id VARCHAR, in_corpus BOOLEAN);
CREATE TABLE result_assertion_classes (
  system_id VARCHAR, item_id VARCHAR, attempt INTEGER, assertion_id VARCHAR, kind VARCHAR, ref VARCHAR,
  class_declared VARCHAR, class_proven VARCHAR);
CREATE TABLE result_scores (system_id VARCHAR, metric VARCHAR, declared BIGINT, proven BIGINT, n_declared BIGINT, n_proven BIGINT);
CREATE TABLE result_constancy (system_id VARCHAR, metric VARCHAR, attempts INTEGER, always BIGINT, sometimes BIGINT, never BIGINT);
CREATE TABLE result_discordant_items (system_a VARCHAR, system_b VARCHAR, metric VARCHAR, item_id VARCHAR, winner VARCHAR);
CREATE TABLE result_sign_tests (system_a VARCHAR, system_b VARCHAR, metric VARCHAR, wins_a BIGINT, wins_b BIGINT, ties BIGINT, p_value DOUBLE);
-- An extra column (not named by the contract) and one TIMESTAMPTZ, to show every column is emitted
-- and that no time zone of the process leaks into the outputs.
CREATE TABLE result_hypotheses (hypothesis_id VARCHAR, statement VARCHAR, threshold DOUBLE, observed DOUBLE, outcome VARCHAR, reason VARCHAR, p_value DOUBLE, p_holm DOUBLE, p_value_against DOUBLE, p_holm_against DOUBLE, observed_lower DOUBLE, observed_upper DOUBLE, decision_reason VARCHAR, registered_at TIMESTAMPTZ, tags VARCHAR[]);
CREATE TABLE result_score_intervals (system_id VARCHAR, metric VARCHAR, alpha DOUBLE, declared_lower DOUBLE, declared_upper DOUBLE, proven_lower DOUBLE, proven_upper DOUBLE);
CREATE TABLE result_sign_test_adjustments (system_a VARCHAR, system_b VARCHAR, metric VARCHAR, discordant BIGINT, p_value DOUBLE, p_holm DOUBLE, alpha DOUBLE, reaches_alpha BOOLEAN, fewest_discordant BIGINT, wins_needed BIGINT, caveats VARCHAR[], beyond_noise BOOLEAN);
CREATE TABLE result_noise_floor (system_id VARCHAR, replicate VARCHAR, metric VARCHAR, items BIGINT, discordant BIGINT, p_value DOUBLE, reason_code VARCHAR);
CREATE TABLE result_retrieval (system_id VARCHAR, evidence VARCHAR, positives BIGINT, missing BIGINT, expected_served BIGINT, near_miss BIGINT, not_served BIGINT);
CREATE TABLE result_constancy_flips (system_id VARCHAR, item_id VARCHAR, metric VARCHAR, attempts INTEGER, met INTEGER, served INTEGER, missing INTEGER, cause VARCHAR, retrieval_cause VARCHAR);
CREATE TABLE coverage (system_id VARCHAR, registered BOOLEAN, items BIGINT, attempts_per_item INTEGER, expected BIGINT, submitted BIGINT, missing BIGINT, items_without_record BIGINT, jobs_not_submitted BIGINT, status VARCHAR, expected_tools_missing BIGINT, unexpected_tools VARCHAR[], replicate_of VARCHAR);
CREATE TABLE timeline_tools (record_id BIGINT, system_id VARCHAR, item_id VARCHAR, attempt INTEGER, job_id VARCHAR, expected_tools VARCHAR[], logged_as VARCHAR[], logged_tools VARCHAR[], check_tools VARCHAR, missing_tools VARCHAR[], unexpected_tools VARCHAR[], reason_codes VARCHAR[]);
CREATE TABLE unsubmitted_jobs (system_id VARCHAR, job_id VARCHAR, reason_code VARCHAR, bound_by VARCHAR[], file VARCHAR, line_no BIGINT);
CREATE TABLE record_refusals (record_id BIGINT, system_id VARCHAR, item_id VARCHAR, attempt INTEGER, flag BOOLEAN, by_text BOOLEAN, declared BOOLEAN, proven BOOLEAN);
CREATE TABLE answer_key_amounts (item_id VARCHAR, ref VARCHAR, value VARCHAR, unit VARCHAR, derived VARCHAR);
CREATE TABLE seller_inconsistencies (reason_code VARCHAR, item_id VARCHAR, request_hash VARCHAR, seller VARCHAR, system_id VARCHAR, attempt INTEGER, record_id BIGINT, evidence_index INTEGER, served_refs VARCHAR[], served_texts VARCHAR[]);
`;

const ROWS = `
INSERT INTO submission_files VALUES
  ('inputs/submissions/sys-b.jsonl', '${'b'.repeat(64)}', 2048, 3, 2, 1),
  ('inputs/submissions/sys-a.jsonl', '${'a'.repeat(64)}', 4096, 4, 4, 0);
INSERT INTO records VALUES
  (5, 'sys-b', 'mp-002', 1, 'inputs/submissions/sys-b.jsonl', 3, 900, '${'5'.repeat(64)}', 'Réponse R2152-2', false, false, 1, false, NULL),
  (1, 'sys-a', 'mp-001', 1, 'inputs/submissions/sys-a.jsonl', 1, 0, '${'1'.repeat(64)}', 'Selon R2122-8, 40 000 €', false, false, 1, true, NULL),
  (2, 'sys-a', 'mp-001', 2, 'inputs/submissions/sys-a.jsonl', 2, 300, '${'2'.repeat(64)}', '日本語の答え 😀', false, false, 0, false, NULL),
  (4, 'sys-b', 'mp-001', 1, 'inputs/submissions/sys-b.jsonl', 1, 0, '${'4'.repeat(64)}', 'x', true, false, 0, false, NULL),
  (3, 'sys-a', 'mp-002', 1, 'inputs/submissions/sys-a.jsonl', 3, 600, '${'3'.repeat(64)}', 'y', false, true, 0, false, NULL),
  (6, 'sys-a', 'mp-003', 1, 'inputs/submissions/sys-a.jsonl', 4, 800, '${'6'.repeat(64)}', 'z', false, false, 0, false, NULL);
INSERT INTO rejects VALUES
  ('inputs/submissions/sys-b.jsonl', 2, 500, '${'c'.repeat(64)}', 'SUBMISSION_SCHEMA', 17, 'missing "answer", café; line 2'),
  ('inputs/submissions/sys-a.jsonl', 9, 77, '${'d'.repeat(64)}', 'LINE_EMPTY', NULL, '');
-- What verify makes of them: the submissions' rejects and the commitments file's (none here).
CREATE TABLE input_rejects AS SELECT * FROM rejects;
INSERT INTO assertions VALUES
  (5, 'sys-b', 'mp-002', 1, 'a3', 'citation', 'R2152-2', 8, 15, NULL, ['Réponse']),
  (1, 'sys-a', 'mp-001', 1, 'a1', 'citation', 'R2122-8', 6, 13, NULL, ['Selon', 'R2122-8']),
  (1, 'sys-a', 'mp-001', 1, 'a2', 'amount', NULL, 15, 23, 40000.0, []),
  (2, 'sys-a', 'mp-001', 2, 'a4', 'citation', 'L2161-1', 0, 7, NULL, NULL),
  (3, 'sys-a', 'mp-002', 1, 'a5', 'amount', NULL, 0, 3, 0.1, ['日本', '😀']);
INSERT INTO proof_checks VALUES
  (5, 0, 'TAMPERED', ['PROOF_CHAIN_MISMATCH'], '{"chain":false,"signature":true}', TIMESTAMPTZ '2026-11-03 10:00:00+00'),
  (1, 0, 'VERIFIED', [], '{"chain":true,"signature":true}', TIMESTAMPTZ '2026-11-03 09:30:00.25+00'),
  (4, 0, 'UNTRUSTED', ['PROOF_KEY_UNTRUSTED', 'PROOF_TSA_MISSING'], '{"chain":true,"signature":"é"}', NULL);
-- No system registered; sys-b's line 5 carries sys-a's proof of record 1.
INSERT INTO evidence_reuse VALUES
  ('proof_id', 'prf_copied', ['sys-a/mp-001/1', 'sys-b/mp-002/1'], ['sys-a', 'sys-b'], ['sys-a/mp-001/1', 'sys-b/mp-002/1'], true);
INSERT INTO evidence_ownership VALUES
  (5, 'proof', 0, 'sys-b', 'VERIFIED', ['EVIDENCE_REUSED']),
  (1, 'proof', 0, 'sys-a', 'VERIFIED', ['EVIDENCE_REUSED']),
  (4, 'proof', 0, 'sys-b', 'UNTRUSTED', []),
  (1, 'timeline', NULL, 'sys-a', 'ANCHORED', []);
INSERT INTO chain_checks VALUES
  (1, 'job-sys-a-1', 'ANCHORED', [], 3),
  (5, 'job-sys-b-5', 'BROKEN', ['CHAIN_LINK_BROKEN', 'COMMITMENT_MISSING'], 2);
INSERT INTO result_assertion_classes VALUES
  ('sys-b', 'mp-002', 1, 'a3', 'citation', 'R2152-2', 'GROUNDED_EXPECTED', 'OUT_OF_CONTEXT'),
  ('sys-a', 'mp-001', 2, 'a4', 'citation', 'L2161-1', 'PHANTOM', 'PHANTOM'),
  ('sys-a', 'mp-001', 1, 'a1', 'citation', 'R2122-8', 'GROUNDED_EXPECTED', 'GROUNDED_EXPECTED'),
  ('sys-a', 'mp-001', 1, 'a2', 'amount', NULL, 'AMOUNT_SUPPORTED', 'AMOUNT_INVENTED'),
  ('sys-a', 'mp-002', 1, 'a5', 'amount', NULL, 'NOT_JUDGED', 'NOT_JUDGED');
INSERT INTO result_scores VALUES
  ('sys-b', 'positives_citing_expected', 2, 1, 3, 3),
  ('sys-a', 'phantom_count', 1, 1, 5, 5),
  ('sys-a', 'positives_citing_expected', 3, 2, 4, 4),
  ('sys-b', 'phantom_count', 0, 0, 0, 0),
  ('sys-a', 'refusal_rate', NULL, NULL, NULL, NULL);
INSERT INTO result_constancy VALUES
  ('sys-b', 'positives_citing_expected', 2, 1, 0, 1),
  ('sys-a', 'positives_citing_expected', 3, 1, 1, 0);
INSERT INTO result_sign_tests VALUES
  ('sys-a', 'sys-b', 'positives_citing_expected', 3, 1, 0, 0.625),
  ('sys-a', 'sys-b', 'phantom_count', 0, 0, 2, 1.0);
INSERT INTO result_discordant_items VALUES
  ('sys-a', 'sys-b', 'positives_citing_expected', 'mp-003', 'sys-a'),
  ('sys-a', 'sys-b', 'positives_citing_expected', 'mp-001', 'sys-b');
INSERT INTO result_hypotheses VALUES
  ('H2', 'Proven grounding is lower than declared — «écart»', 0.1, 0.2833333333333333, 'SUPPORTED', 'the gap the study measures', 0.001, 0.002, 0.999, 1.0, 0.15, 0.45, 'the threshold is met', TIMESTAMPTZ '2026-10-01 00:00:00+00', ['gap']),
  ('H1', 'Phantoms < 10 %', 0.1, NULL, 'INCONCLUSIVE', 'one in ten', 1.0, 1.0, 1.0, 1.0, NULL, NULL, 'no case bears on it: p = 1', NULL, []);
INSERT INTO result_score_intervals VALUES
  ('sys-b', 'positives_citing_expected', 0.05, 0.09429932405024981, 0.9915962413184829, 0.008403758681517089, 0.9057007194831),
  ('sys-a', 'positives_citing_expected', 0.05, 0.3976354952078, 1.0, 0.0675865993, 0.9324134007);
INSERT INTO result_sign_test_adjustments VALUES
  ('sys-a', 'sys-b', 'positives_citing_expected', 4, 0.625, 1.0, 0.05, false, 6, NULL, ['TRUNCATION_GAP'], NULL),
  ('sys-a', 'sys-b', 'phantom_count', 0, 1.0, 1.0, 0.05, false, 6, NULL, [], NULL);
INSERT INTO coverage VALUES
  ('sys-b', false, 3, 2, 6, 2, 4, 1, 1, 'INCOMPLETE', NULL, NULL, NULL),
  ('sys-a', false, 3, 2, 6, 4, 2, 0, 0, 'INCOMPLETE', NULL, NULL, NULL);
INSERT INTO unsubmitted_jobs VALUES ('sys-b', 'job-hidden', 'JOB_NOT_SUBMITTED', ['intake'], 'inputs/commitments/sys-b.jsonl', 2);
INSERT INTO record_refusals VALUES
  (5, 'sys-b', 'mp-002', 1, false, true, true, true),
  (1, 'sys-a', 'mp-001', 1, false, false, false, false);
INSERT INTO answer_key_amounts VALUES
  ('mp-003', 'R2123-1', '5759000', 'EUR', 'the sum of the two thresholds'),
  ('mp-001', 'R2122-8', '40000', 'EUR', NULL);
INSERT INTO seller_inconsistencies VALUES
  ('SELLER_INCONSISTENT', 'mp-001', '${'c'.repeat(64)}', 'retrieval.example', 'sys-b', 1, 4, 0, ['R2121-1'], ['t1']),
  ('SELLER_INCONSISTENT', 'mp-001', '${'c'.repeat(64)}', 'retrieval.example', 'sys-a', 1, 1, 0, ['R2122-8', 'R2123-1'], ['t8', 't3']);
INSERT INTO stage_runs VALUES ('ingest', '${'e'.repeat(64)}', '{}', '{}', '0.1.0', 'v1.5.6');
-- A section-5 view that fails when queried: emit must never read a view.
CREATE VIEW scores AS SELECT error('emit queried a section-5 view') AS boom;
`;

/** Runs statements against a DuckDB file (created when missing). */
export async function sql(path: string, statements: string): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  const c = await instance.connect();
  try {
    await c.run(statements);
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}

/** Rows of a query, as JSON-able objects (bigints as strings). */
export async function rowsOf(path: string, query: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(path, path === ':memory:' ? {} : { access_mode: 'READ_ONLY' });
  const c = await instance.connect();
  try {
    return (await c.runAndReadAll(query)).getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}

export async function buildStore(path: string): Promise<void> {
  mkdirSync(join(path, '..'), { recursive: true });
  await sql(path, readFileSync(TABLES_SQL_PATH, 'utf8') + SCHEMA + ROWS + '\nCHECKPOINT;');
}

/** A copy of the example study with work/prereg.duckdb built by buildStore. */
export async function studyWithStore(): Promise<{ root: string; store: string; cleanup: () => void }> {
  const study = copyExampleStudy();
  const store = join(study.root, 'work', 'prereg.duckdb');
  await buildStore(store);
  return { root: study.root, store, cleanup: study.cleanup };
}

/** A second store file with the same rows, then `statements` applied. */
export async function variantStore(from: string, to: string, statements: string): Promise<void> {
  mkdirSync(join(to, '..'), { recursive: true });
  cpSync(from, to);
  await sql(to, `${statements};\nCHECKPOINT;`);
}

/** Every file of a directory with its bytes, by name. */
export function filesOf(dir: string): Map<string, Buffer> {
  return new Map(
    readdirSync(dir)
      .sort()
      .map((f) => [f, readFileSync(join(dir, f))]),
  );
}

export function run(cmd: string, args: string[], cwd?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
