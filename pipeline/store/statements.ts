// Named statements: every query a stage runs against the store that is not a .sql file of its
// own. Tables and columns come in as identifiers (quoted by sql-text.ts); values as parameters,
// except verify's record ranges (integers, as literals: recordRange).
import { quoteIdent, quoteLiteral } from './sql-text.ts';

/** A table's columns in the order DuckDB stores them ($1: the table). */
export const TABLE_COLUMNS =
  "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = $1 AND schema_name = 'main' ORDER BY column_index";

/** The columns of every base table of an attached database ($1: its alias); views never qualify. */
export const BASE_TABLE_COLUMNS = `SELECT c.table_name, c.column_name
       FROM duckdb_columns() c
       JOIN duckdb_tables() t ON t.database_name = c.database_name AND t.schema_name = c.schema_name AND t.table_name = c.table_name
      WHERE c.database_name = $1 AND c.schema_name = 'main'
      ORDER BY c.table_name, c.column_index`;

/**
 * Records per query of verify's two scans below. Each query sorts one range of records, never the
 * whole table: one sort over every proof text held ≈ 560 MiB in DuckDB at 100,000 records
 * (docs/performance.md). Ingest numbers records 1, 2, … so every range but the last is full.
 */
export const VERIFY_RECORD_RANGE = 2048;

/** A record-id range as SQL literals: bound as parameters, the 49 evidence scans of 100,000 records took 4.4 s of CPU instead of 3.5. */
function recordRange(column: string, after: number, upTo: number): string {
  if (!Number.isSafeInteger(after) || !Number.isSafeInteger(upTo)) throw new Error(`recordRange: ${after}, ${upTo} are not integers`);
  return `${column} > ${after} AND ${column} <= ${upTo}`;
}

/** The evidence items to verify of the records after < record_id <= upTo, with their record's key, in (record, evidence) order. */
export function evidenceToVerify(after: number, upTo: number): string {
  return `SELECT r.record_id, r.system_id, r.item_id, r.attempt, e.evidence_index,
                e.proof_json::VARCHAR AS proof, e.request_json::VARCHAR AS request, e.response_json::VARCHAR AS response,
                e.disclosure_json::VARCHAR AS disclosure, e.tlog_entry_json::VARCHAR AS tlog_entry
         FROM evidence e JOIN records r USING (record_id) WHERE ${recordRange('e.record_id', after, upTo)} ORDER BY e.record_id, e.evidence_index`;
}

/** How many evidence items and receipt chains verify has before it (the totals its progress counts against), and the record ids its ranges span. */
export const VERIFY_TOTALS = `SELECT (SELECT count(*) FROM evidence) AS evidence, (SELECT count(*) FROM receipts) AS chains,
                                     (SELECT coalesce(min(record_id), 1) FROM records) AS first_record, (SELECT coalesce(max(record_id), 0) FROM records) AS last_record`;

/** The receipt chains to verify of the records after < record_id <= upTo, with their record's key, in record order. */
export function receiptsToVerify(after: number, upTo: number): string {
  return `SELECT r.record_id, r.system_id, r.item_id, r.attempt, 0 AS evidence_index, c.chain_json::VARCHAR AS chain
         FROM receipts c JOIN records r USING (record_id) WHERE ${recordRange('c.record_id', after, upTo)} ORDER BY c.record_id`;
}

/**
 * The passages of every evidence response of the records after < record_id <= upTo, in (record,
 * evidence, passage) order: `ref` and `text` as the response writes them (a text that is not a
 * JSON string comes back as its JSON). What verify matches against the corpus (passage_corpus).
 */
export function evidencePassages(after: number, upTo: number): string {
  return `WITH counted AS (
            SELECT record_id, evidence_index, response_json,
                   CASE WHEN json_type(response_json, '$.passages') = 'ARRAY' THEN CAST(json_array_length(response_json, '$.passages') AS BIGINT) ELSE 0 END AS n
            FROM evidence WHERE ${recordRange('record_id', after, upTo)}
          ), indexed AS (
            SELECT record_id, evidence_index, response_json, unnest(range(n)) AS i FROM counted
          )
          SELECT record_id, evidence_index, CAST(i AS INTEGER) AS passage_index,
                 json_extract_string(response_json, '$.passages[' || i || '].ref') AS ref,
                 json_extract_string(response_json, '$.passages[' || i || '].text') AS text
          FROM indexed ORDER BY record_id, evidence_index, passage_index`;
}

/** The answers the classify stage reads, in record order. */
export const ANSWERS_TO_CLASSIFY =
  'SELECT record_id, system_id, item_id, attempt, answer_text, refused, truncated FROM records ORDER BY record_id';

/** What coverage.sql reads as getvariable('attempts_per_item') ($1: an integer, or NULL without a protocol). */
export const SET_ATTEMPTS_PER_ITEM = 'SET VARIABLE attempts_per_item = CAST($1 AS INTEGER)';

/** What coverage.sql reads as getvariable('expected_tools_declared') ($1: whether study.json declares protocol.expected_tools). */
export const SET_EXPECTED_TOOLS_DECLARED = 'SET VARIABLE expected_tools_declared = $1::BOOLEAN';

/** The served passages the classify stage reads (what each serves, and the texts it scans for mentions), in (record, evidence, passage) order. */
export const SERVED_PASSAGES_TO_CLASSIFY =
  'SELECT record_id, evidence_index, passage_index, ref, text, corpus_text, declared, proven, owned FROM served_passages ORDER BY record_id, evidence_index, passage_index';

/** What served-passages.sql reads as getvariable('require_receipts') ($1: a boolean). */
export const SET_REQUIRE_RECEIPTS = 'SET VARIABLE require_receipts = $1::BOOLEAN';

/** Section 5's scores, which the score stage adds intervals to (analysis/score-tables.ts). */
export const SCORES_TO_ADJUST =
  'SELECT system_id, metric, declared, proven, n_declared, n_proven FROM result_scores ORDER BY system_id, metric';

/** Section 5's sign tests, which the score stage adjusts for multiplicity (Holm). */
export const SIGN_TESTS_TO_ADJUST =
  'SELECT system_a, system_b, metric, wins_a, wins_b, ties, p_value FROM result_sign_tests ORDER BY metric, system_a, system_b';

/** Each replicate campaign and the system it repeats (study.json systems[].replicate_of). */
export const REPLICATES = 'SELECT system_id, replicate_of FROM registered_systems WHERE replicate_of IS NOT NULL ORDER BY system_id';

/** Per system, its truncated answers and its expected records (SPEC §13.1: the truncation gap beside each comparison). */
export const TRUNCATED_SHARES = `SELECT e.system_id, count(*) AS expected, count(*) FILTER (WHERE r.truncated) AS truncated
  FROM expected_records e LEFT JOIN records r ON r.record_id = e.record_id GROUP BY e.system_id ORDER BY e.system_id`;

/**
 * The expected positive records (SPEC §13.2: retrieval and near misses), each with its item's
 * expected refs and the refs served to it, declared and proven (proven_owned, as section 5 counts
 * them), counted by system and alike records (`records`): a study's records repeat few such rows.
 */
export const RETRIEVAL_RECORDS = `SELECT system_id, missing, expected_refs, declared_refs, proven_refs, count(*) AS records
  FROM (SELECT e.system_id, e.record_id IS NULL AS missing, k.expected_refs,
               coalesce(list(sr.ref ORDER BY sr.ref) FILTER (WHERE sr.declared), []) AS declared_refs,
               coalesce(list(sr.ref ORDER BY sr.ref) FILTER (WHERE sr.proven_owned), []) AS proven_refs
          FROM expected_records e
          JOIN answer_key k ON k.item_id = e.item_id AND k.kind = 'positive'
          LEFT JOIN served_refs sr ON sr.record_id = e.record_id
          GROUP BY e.system_id, e.item_id, e.attempt, e.record_id, k.expected_refs)
  GROUP BY ALL ORDER BY ALL`;

/** A Parquet file's rows in file order ($1: its path). */
export const READ_PARQUET = 'SELECT * FROM read_parquet($1)';

/** Every column of `table` (qualified), named ones first, in the total order ORDER BY ALL gives. */
export function orderedSelect(table: string, columns: readonly string[]): string {
  return `SELECT ${columns.map(quoteIdent).join(', ')} FROM ${table} ORDER BY ALL`;
}

export function countRows(table: string): string {
  return `SELECT count(*) FROM ${table}`;
}

/**
 * Per system and class, how many rows of assertion_classes (`table`) carry it as class_declared and
 * as class_proven: what the report's table of classes shows, counted here rather than over every row.
 */
export function classCountsOf(table: string): string {
  return `SELECT system_id, class, count(*) FILTER (WHERE side = 'declared') AS declared, count(*) FILTER (WHERE side = 'proven') AS proven
  FROM (SELECT system_id, class_declared AS class, 'declared' AS side FROM ${table}
        UNION ALL SELECT system_id, class_proven, 'proven' FROM ${table})
  GROUP BY ALL ORDER BY ALL`;
}

/** Rows per value of `column`, as (text, count) pairs sorted by the value, NULL last. */
export function countsBy(table: string, column: string): string {
  const c = quoteIdent(column);
  return `SELECT CAST(${c} AS VARCHAR) AS v, count(*) FROM ${table} GROUP BY v ORDER BY v NULLS LAST`;
}

/**
 * The records whose `refused` flag the refusal judgement from the text (served as declared)
 * contradicts (REFUSAL_FLAG_DISAGREES, SPEC §13.1), located at their submission line, in record order.
 */
export function refusalDisagreements(refusals: string, records: string): string {
  return `SELECT r.system_id, r.item_id, r.attempt, r.file, r.line_no, rr.flag AS refused_flag, rr.declared AS refused_by_text, 'REFUSAL_FLAG_DISAGREES' AS reason_code
          FROM ${refusals} rr JOIN ${records} r ON r.record_id = rr.record_id
          WHERE rr.by_text IS NOT NULL AND rr.flag <> rr.declared
          ORDER BY r.system_id, r.item_id, r.attempt, r.file, r.line_no`;
}

/** The records whose timeline lacks an expected tool (EXPECTED_TOOL_MISSING, SPEC §13.3), each with its line, in a total order. */
export function toolsMissing(tools: string, records: string): string {
  return `SELECT t.system_id, t.item_id, t.attempt, t.job_id, t.missing_tools, t.logged_tools, 'EXPECTED_TOOL_MISSING' AS reason_code, r.file, r.line_no
          FROM ${tools} t JOIN ${records} r ON r.record_id = t.record_id
          WHERE t.check_tools = 'fail'
          ORDER BY t.system_id, t.item_id, t.attempt, r.file, r.line_no`;
}

/**
 * The rows of seller_inconsistencies grouped by request (item, request hash, seller), each with
 * what every counted proof of it was served, in a total order.
 */
export function sellerInconsistencies(table: string): string {
  return `SELECT reason_code, item_id, request_hash, seller,
                 list({'system_id': system_id, 'attempt': attempt, 'evidence_index': evidence_index,
                       'passages': list_transform(range(1, len(served_refs) + 1), i -> {'ref': served_refs[i], 'text': served_texts[i]})}
                      ORDER BY system_id, attempt, record_id, evidence_index) AS served
          FROM ${table}
          GROUP BY reason_code, item_id, request_hash, seller
          ORDER BY item_id, request_hash, seller`;
}

/**
 * Per system, each configuration its records carry (config_json: canonical JSON text, NULL for
 * records without one) and how many records carry it; `varies` when the system has more than one
 * (no configuration counts as one of them): CONFIG_VARIES, a caveat on its comparisons (SPEC §13.2).
 * Configurations are only listed: they never split a system's attempts.
 */
export function systemConfigurations(records: string): string {
  return `SELECT system_id, config_json AS config, count(*)::BIGINT AS records,
                 count(*) OVER (PARTITION BY system_id) > 1 AS varies
          FROM ${records} GROUP BY system_id, config_json
          ORDER BY system_id, config_json NULLS FIRST`;
}

/** The answer key's amounts marked derived (exempt from freeze's corpus check), in key order of item, ref, value. */
export function derivedAmounts(table: string): string {
  return `SELECT item_id, ref, value, unit, derived FROM ${table} WHERE derived IS NOT NULL ORDER BY item_id, ref, value, unit, derived`;
}

/** Per system: proofs checked, proofs with at least one independent witness, and the witnesses. */
export function witnessesBySystem(table: string): string {
  return `SELECT system_id, count(*)::BIGINT AS proofs, count(*) FILTER (WHERE independent_witnesses > 0)::BIGINT AS witnessed, coalesce(sum(independent_witnesses), 0)::BIGINT AS witnesses
       FROM ${table} GROUP BY system_id ORDER BY system_id`;
}

/** Outputs in UTC whatever the process's time zone (fails without the ICU extension: then UTC anyway). */
export const SET_TIME_ZONE_UTC = "SET TimeZone = 'UTC'";

/** Attaches a database file read-only under `alias` (DuckDB takes no parameter for the path). */
export function attachReadOnly(file: string, alias: string): string {
  return `ATTACH ${quoteLiteral(file)} AS ${quoteIdent(alias)} (READ_ONLY)`;
}

/** Writes a query's rows to `path` with the given COPY options (DuckDB takes no parameter for the path). */
export function copyTo(select: string, path: string, options: string): string {
  return `COPY (${select}) TO ${quoteLiteral(path)} (${options})`;
}

/** Per system, from evidence_ownership (qualified): proofs, verified ones, and those not bound or reused; timelines reused. */
export function evidenceOwnershipBySystem(table: string, passages: string): string {
  return `SELECT system_id,
              count(*) FILTER (WHERE evidence_kind = 'proof') AS proofs,
              count(*) FILTER (WHERE evidence_kind = 'proof' AND status = 'VERIFIED') AS verified,
              count(*) FILTER (WHERE evidence_kind = 'proof' AND list_contains(reason_codes, 'EVIDENCE_NOT_BOUND')) AS proofs_not_bound,
              count(*) FILTER (WHERE evidence_kind = 'proof' AND list_contains(reason_codes, 'EVIDENCE_REUSED')) AS proofs_reused,
              count(*) FILTER (WHERE evidence_kind = 'timeline' AND list_contains(reason_codes, 'EVIDENCE_REUSED')) AS timelines_reused,
              count(*) FILTER (WHERE evidence_kind = 'proof' AND (list_contains(reason_codes, 'EVIDENCE_SELLER_UNBOUND') OR list_contains(reason_codes, 'EVIDENCE_SELLER_UNPINNED'))) AS proofs_seller_not_pinned,
              (SELECT count(*) FROM ${passages} p WHERE p.system_id = o.system_id AND NOT p.in_corpus) AS passages_not_in_corpus
       FROM ${table} o GROUP BY system_id ORDER BY system_id`;
}

/** The rows of evidence_ownership EVIDENCE_NOT_BOUND and EVIDENCE_REUSED, after verify. */
export const OWNERSHIP_COUNTS = `SELECT count(*) FILTER (WHERE list_contains(reason_codes, 'EVIDENCE_NOT_BOUND')), count(*) FILTER (WHERE list_contains(reason_codes, 'EVIDENCE_REUSED')),
  count(*) FILTER (WHERE list_contains(reason_codes, 'EVIDENCE_SELLER_UNBOUND')), count(*) FILTER (WHERE list_contains(reason_codes, 'EVIDENCE_SELLER_UNPINNED')) FROM evidence_ownership`;

/** The served passages, and those PASSAGE_NOT_IN_CORPUS, after verify. */
export const PASSAGE_COUNTS = 'SELECT count(*), count(*) FILTER (WHERE NOT in_corpus) FROM served_passages';

/**
 * What each verified proof of an emitted proof_checks.parquet rests on: the pinned issuer key and,
 * when its token verified, the TSA root it chained to (the audit's trust rail, docs/audit.md).
 */
export const VERIFIED_PROOF_TRUST = `SELECT system_id, item_id, attempt, key_id, proof_timestamp, tsa_gen_time,
  CASE WHEN check_tsa = 'pass' THEN tsa_root_sha256 END AS tsa_root_sha256
FROM read_parquet($1) WHERE status = 'VERIFIED'`;

// --- verify shards (verify/shard-write.ts, verify/shard-merge.ts; docs/scaling.md) ------------------

/** How many rows a table holds. */
export function tableRowCount(table: string): string {
  return `SELECT count(*) AS n FROM ${quoteIdent(table)}`;
}

// A shard ingests only the lines of its share, so its record_id numbers are its own: its rows name
// their record by (system_id, item_id, attempt) instead, which the merge turns back into its
// store's record_id.
const SHARD_RECORD = 'record_system_id, record_item_id, record_attempt';
const SHARD_RECORD_MATCH = 'r.system_id = p.record_system_id AND r.item_id = p.record_item_id AND r.attempt = p.record_attempt';
const parquetFiles = (files: readonly string[]) => `read_parquet([${files.map(quoteLiteral).join(', ')}])`;

/** A shard's rows of `table`, in `order`: the record's identity in place of its record_id (read back by insertShardRows). */
export function shardRows(table: string, order: string): string {
  return `SELECT r.system_id AS record_system_id, r.item_id AS record_item_id, r.attempt AS record_attempt, t.* EXCLUDE (record_id)
          FROM ${quoteIdent(table)} t JOIN records r USING (record_id) ORDER BY ${order}`;
}

/** The first row of the shards' Parquet `files` whose record is none of the store's records (none: every row's record is there). */
export function shardRowsOfNoRecord(files: readonly string[]): string {
  return `SELECT ${SHARD_RECORD} FROM ${parquetFiles(files)} p WHERE NOT EXISTS (SELECT 1 FROM records r WHERE ${SHARD_RECORD_MATCH})
          ORDER BY ALL LIMIT 1`;
}

/** Appends the shards' rows of `table` (Parquet `files` written from shardRows), by column name, each with this store's record_id, in `order`. */
export function insertShardRows(table: string, files: readonly string[], order: string): string {
  return `INSERT INTO ${quoteIdent(table)} BY NAME
          SELECT r.record_id, p.* EXCLUDE (${SHARD_RECORD}) FROM ${parquetFiles(files)} p JOIN records r ON ${SHARD_RECORD_MATCH}
          ORDER BY ${order}`;
}

/** proof_checks and chain_checks by status: what verify counts (VerifyCounts). */
export const SHARD_STATUS_COUNTS = `SELECT 'evidence' AS kind, status, count(*) AS n FROM proof_checks GROUP BY ALL
  UNION ALL SELECT 'chain' AS kind, status, count(*) AS n FROM chain_checks GROUP BY ALL ORDER BY kind, status`;

/** Each per-item key with the rows it has in a table, against what ingest holds (evidence, receipts, records). */
export const SHARD_COVERAGE = {
  proof_checks: `SELECT record_id, evidence_index, count(p.record_id) AS n,
                        bool_or(p.record_id IS NOT NULL AND (e.record_id IS NULL OR r.record_id IS NULL OR r.system_id <> p.system_id
                                OR r.item_id <> p.item_id OR r.attempt <> p.attempt)) AS foreign_row
                 FROM evidence e FULL JOIN proof_checks p USING (record_id, evidence_index) LEFT JOIN records r USING (record_id)
                 GROUP BY record_id, evidence_index HAVING count(p.record_id) <> 1 OR foreign_row ORDER BY foreign_row DESC, record_id, evidence_index LIMIT 1`,
  chain_checks: `SELECT record_id, NULL AS evidence_index, count(k.record_id) AS n,
                        bool_or(k.record_id IS NOT NULL AND (c.record_id IS NULL OR r.record_id IS NULL OR r.system_id <> k.system_id
                                OR r.item_id <> k.item_id OR r.attempt <> k.attempt)) AS foreign_row
                 FROM receipts c FULL JOIN chain_checks k USING (record_id) LEFT JOIN records r USING (record_id)
                 GROUP BY record_id HAVING count(k.record_id) <> 1 OR foreign_row ORDER BY foreign_row DESC, record_id LIMIT 1`,
};
