// Every base table of the store, declared once: its name and its columns, in the order DuckDB
// stores them, each with its type (and NOT NULL). The .sql files beside this one create the tables
// (section 5 reads them, docs/tables.md documents them); test/store/tables.test.ts runs every one
// of them and compares what DuckDB made with these declarations, column by column. The column lists
// row builders name, the rows' TypeScript types and the lists emit reads are derived from here.
import { PROOF_CATALOGUE, type ProofCheck } from '../evidence/arkforge/checks.ts';
import { TIMELINE_CATALOGUE } from '../evidence/aer1/timeline.ts';
import { TOOLS_CATALOGUE } from '../evidence/aer1/expected-tools.ts';
import { checkColumns, type CheckCatalogue } from '../evidence/check-catalogue.ts';
import { TLOG_CATALOGUE } from '../evidence/tlog/rekor-entry.ts';

/** The column types the tables use. */
export type ColumnType = 'VARCHAR' | 'JSON' | 'BIGINT' | 'INTEGER' | 'DOUBLE' | 'BOOLEAN' | 'VARCHAR[]';
/** A column as DuckDB describes it: its type, and NOT NULL when it may hold no NULL. */
export type ColumnDeclaration = ColumnType | `${ColumnType} NOT NULL`;

/** A verifier's checks as columns (`check_structure`, `tlog_kind`…) holding the check's outcome, in `order`. */
function checkColumnTypes<const Check extends string, const Prefix extends string>(
  catalogue: CheckCatalogue<Check>,
  order: readonly Check[],
  prefix: Prefix,
): { readonly [C in Check as `${Prefix}${C}`]: 'VARCHAR NOT NULL' } {
  return Object.fromEntries(checkColumns(catalogue, order, prefix).map((c) => [c, 'VARCHAR NOT NULL'])) as never;
}

/**
 * The order of proof_checks' check_* columns: the table's since its first release (the catalogue
 * records the checks in another order); checkColumns refuses an order that is not of every check.
 */
const PROOF_CHECK_COLUMN_ORDER: readonly ProofCheck[] = [
  'structure',
  'request_hash',
  'response_hash',
  'chain',
  'signature',
  'key',
  'tsa',
  'time',
  'commitments',
  'disclosures',
  'body_binding',
  'identity',
  'batch',
  'tlog',
];

/** The columns of a rejected input line, in every table of rejects. */
const REJECT_ROW = {
  file: 'VARCHAR',
  line_no: 'BIGINT',
  byte_offset: 'BIGINT',
  line_sha256: 'VARCHAR',
  reason_code: 'VARCHAR',
  column_no: 'INTEGER',
  detail: 'VARCHAR',
} as const satisfies Record<string, ColumnType>;

/** `columns` with each made NOT NULL but those in `except`: a table created with its constraints, not by a SELECT. */
function notNull<const T extends Record<string, ColumnType>, const E extends keyof T>(
  columns: T,
  except: readonly E[],
): { readonly [C in keyof T]: C extends E ? T[C] : `${T[C]} NOT NULL` } {
  return Object.fromEntries(Object.entries(columns).map(([c, t]) => [c, except.includes(c as E) ? t : `${t} NOT NULL`])) as never;
}

export const TABLES = {
  // --- tables.sql: ingest
  stage_runs: {
    stage: 'VARCHAR NOT NULL',
    inputs_digest: 'VARCHAR NOT NULL',
    inputs_json: 'JSON NOT NULL',
    outputs_json: 'JSON NOT NULL',
    tool_version: 'VARCHAR NOT NULL',
    duckdb_version: 'VARCHAR NOT NULL',
  },
  submission_files: {
    file: 'VARCHAR NOT NULL',
    sha256: 'VARCHAR NOT NULL',
    bytes: 'BIGINT NOT NULL',
    lines_read: 'BIGINT NOT NULL',
    accepted: 'BIGINT NOT NULL',
    rejected: 'BIGINT NOT NULL',
  },
  records: {
    record_id: 'BIGINT NOT NULL',
    system_id: 'VARCHAR NOT NULL',
    item_id: 'VARCHAR NOT NULL',
    attempt: 'INTEGER NOT NULL',
    file: 'VARCHAR NOT NULL',
    line_no: 'BIGINT NOT NULL',
    byte_offset: 'BIGINT NOT NULL',
    line_sha256: 'VARCHAR NOT NULL',
    answer_text: 'VARCHAR NOT NULL',
    refused: 'BOOLEAN NOT NULL',
    truncated: 'BOOLEAN NOT NULL',
    evidence_count: 'INTEGER NOT NULL',
    has_receipts: 'BOOLEAN NOT NULL',
    config_json: 'JSON',
  },
  evidence: {
    record_id: 'BIGINT NOT NULL',
    evidence_index: 'INTEGER NOT NULL',
    proof_json: 'JSON NOT NULL',
    request_json: 'JSON',
    response_json: 'JSON',
    disclosure_json: 'JSON',
    tlog_entry_json: 'JSON',
  },
  receipts: {
    record_id: 'BIGINT NOT NULL',
    chain_json: 'JSON NOT NULL',
    chain_sha256: 'VARCHAR NOT NULL',
  },
  rejects: notNull(REJECT_ROW, ['column_no']),
  // --- verify-tables.sql: the checks verify's workers fill, and what verify reads beside them
  proof_checks: {
    record_id: 'BIGINT NOT NULL',
    evidence_index: 'INTEGER NOT NULL',
    system_id: 'VARCHAR NOT NULL',
    item_id: 'VARCHAR NOT NULL',
    attempt: 'INTEGER NOT NULL',
    proof_id: 'VARCHAR',
    spec_version: 'VARCHAR',
    algorithm: 'VARCHAR',
    status: 'VARCHAR NOT NULL',
    reason_codes: 'VARCHAR[] NOT NULL',
    informational_codes: 'VARCHAR[] NOT NULL',
    ...checkColumnTypes(PROOF_CATALOGUE, PROOF_CHECK_COLUMN_ORDER, 'check_'),
    proof_timestamp: 'VARCHAR',
    declared_chain_hash: 'VARCHAR',
    recomputed_chain_hash: 'VARCHAR',
    request_hash: 'VARCHAR',
    response_hash: 'VARCHAR',
    key_id: 'VARCHAR',
    embedded_pubkey: 'VARCHAR',
    embedded_pubkey_pinned: 'BOOLEAN',
    tsa_gen_time: 'VARCHAR',
    tsa_signer: 'VARCHAR',
    tsa_codes: 'VARCHAR[] NOT NULL',
    tsa_root_sha256: 'VARCHAR',
    committed_fields: 'VARCHAR[]',
    opened_fields: 'VARCHAR[] NOT NULL',
    identity_json: 'JSON',
    identity_anchored: 'BOOLEAN',
    buyer_fingerprint: 'VARCHAR',
    buyer_fingerprint_source: 'VARCHAR',
    seller: 'VARCHAR',
    seller_source: 'VARCHAR',
    batch_status: 'VARCHAR',
    batch_id: 'VARCHAR',
    batch_root: 'VARCHAR',
    batch_leaf_index: 'BIGINT',
    batch_tree_size: 'BIGINT',
    witnessed_hash: 'VARCHAR',
    tlog_log_id: 'VARCHAR',
    tlog_log_index: 'BIGINT',
    tlog_integrated_time: 'VARCHAR',
    ...checkColumnTypes(TLOG_CATALOGUE, TLOG_CATALOGUE.checks, 'tlog_'),
    independent_witnesses: 'INTEGER NOT NULL',
    problems: 'VARCHAR[] NOT NULL',
  },
  chain_checks: {
    record_id: 'BIGINT NOT NULL',
    system_id: 'VARCHAR NOT NULL',
    item_id: 'VARCHAR NOT NULL',
    attempt: 'INTEGER NOT NULL',
    job_id: 'VARCHAR',
    form: 'VARCHAR',
    revision: 'VARCHAR',
    construction: 'VARCHAR',
    status: 'VARCHAR NOT NULL',
    reason_codes: 'VARCHAR[] NOT NULL',
    informational_codes: 'VARCHAR[] NOT NULL',
    ...checkColumnTypes(TIMELINE_CATALOGUE, TIMELINE_CATALOGUE.checks, 'check_'),
    entry_count: 'INTEGER NOT NULL',
    final_entry_digest: 'VARCHAR',
    commitment_witness: 'VARCHAR',
    commitment_published_at: 'VARCHAR',
    commitment_route: 'VARCHAR',
    commitment_witnessed_by: 'VARCHAR',
    commitment_witnessed_at: 'VARCHAR',
    provenance_classes: 'VARCHAR[] NOT NULL',
    problems: 'VARCHAR[] NOT NULL',
  },
  chain_entries: {
    record_id: 'BIGINT NOT NULL',
    seq: 'INTEGER NOT NULL',
    entry_digest: 'VARCHAR NOT NULL',
    entry_id: 'VARCHAR NOT NULL',
    output_commitment: 'VARCHAR NOT NULL',
    tool: 'VARCHAR',
    provenance_class: 'VARCHAR',
  },
  timeline_tools: {
    record_id: 'BIGINT NOT NULL',
    system_id: 'VARCHAR NOT NULL',
    item_id: 'VARCHAR NOT NULL',
    attempt: 'INTEGER NOT NULL',
    job_id: 'VARCHAR',
    expected_tools: 'VARCHAR[] NOT NULL',
    logged_as: 'VARCHAR[] NOT NULL',
    logged_tools: 'VARCHAR[] NOT NULL',
    ...checkColumnTypes(TOOLS_CATALOGUE, TOOLS_CATALOGUE.checks, 'check_'),
    missing_tools: 'VARCHAR[] NOT NULL',
    unexpected_tools: 'VARCHAR[] NOT NULL',
    reason_codes: 'VARCHAR[] NOT NULL',
  },
  commitment_rejects: REJECT_ROW,
  registered_systems: {
    system_id: 'VARCHAR NOT NULL',
    buyer_fingerprints: 'VARCHAR[] NOT NULL',
    agent_identities: 'VARCHAR[] NOT NULL',
    affiliated: 'BOOLEAN NOT NULL',
    replicate_of: 'VARCHAR',
  },
  owned_commitments: {
    system_id: 'VARCHAR NOT NULL',
    job_id: 'VARCHAR NOT NULL',
    bound_by: 'VARCHAR NOT NULL',
    file: 'VARCHAR NOT NULL',
    line_no: 'BIGINT NOT NULL',
  },
  seller_policy: {
    any_seller: 'BOOLEAN NOT NULL',
    sellers: 'VARCHAR[] NOT NULL',
  },
  passage_corpus: {
    record_id: 'BIGINT NOT NULL',
    evidence_index: 'INTEGER NOT NULL',
    passage_index: 'INTEGER NOT NULL',
    ref: 'VARCHAR',
    text: 'VARCHAR',
    corpus_match: 'VARCHAR NOT NULL',
    in_corpus: 'BOOLEAN NOT NULL',
    corpus_text: 'VARCHAR',
  },
  // --- evidence-links.sql, evidence-ownership.sql, served-passages.sql, seller-inconsistencies.sql: derived by verify, in this order
  evidence_links: {
    record_id: 'BIGINT',
    evidence_index: 'INTEGER',
    seq: 'INTEGER',
    chain_status: 'VARCHAR',
  },
  evidence_reuse: {
    kind: 'VARCHAR',
    value: 'VARCHAR',
    records: 'VARCHAR[]',
    systems: 'VARCHAR[]',
    claimed_by: 'VARCHAR[]',
    cancels: 'BOOLEAN',
  },
  evidence_ownership: {
    record_id: 'BIGINT',
    evidence_kind: 'VARCHAR',
    evidence_index: 'INTEGER',
    system_id: 'VARCHAR',
    item_id: 'VARCHAR',
    attempt: 'INTEGER',
    evidence_id: 'VARCHAR',
    status: 'VARCHAR',
    buyer_fingerprint: 'VARCHAR',
    binding: 'VARCHAR',
    reused_by: 'VARCHAR[]',
    owned: 'BOOLEAN',
    seller: 'VARCHAR',
    seller_source: 'VARCHAR',
    seller_pinned: 'BOOLEAN',
    reason_codes: 'VARCHAR[]',
  },
  served_passages: {
    system_id: 'VARCHAR',
    item_id: 'VARCHAR',
    attempt: 'INTEGER',
    record_id: 'BIGINT',
    evidence_index: 'INTEGER',
    passage_index: 'INTEGER',
    ref: 'VARCHAR',
    text: 'VARCHAR',
    proof_status: 'VARCHAR',
    anchored_link: 'BOOLEAN',
    seller_pinned: 'BOOLEAN',
    in_corpus: 'BOOLEAN',
    corpus_match: 'VARCHAR',
    corpus_text: 'VARCHAR',
    reason_codes: 'VARCHAR[]',
    declared: 'BOOLEAN',
    proven: 'BOOLEAN',
    owned: 'BOOLEAN',
  },
  seller_inconsistencies: {
    reason_code: 'VARCHAR',
    item_id: 'VARCHAR',
    request_hash: 'VARCHAR',
    seller: 'VARCHAR',
    system_id: 'VARCHAR',
    attempt: 'INTEGER',
    record_id: 'BIGINT',
    evidence_index: 'INTEGER',
    served_refs: 'VARCHAR[]',
    served_texts: 'VARCHAR[]',
  },
  input_rejects: REJECT_ROW,
  // --- classify-tables.sql: the base tables of section 5
  assertions: {
    record_id: 'BIGINT NOT NULL',
    system_id: 'VARCHAR NOT NULL',
    item_id: 'VARCHAR NOT NULL',
    attempt: 'INTEGER NOT NULL',
    assertion_id: 'VARCHAR NOT NULL',
    assertion_index: 'INTEGER NOT NULL',
    kind: 'VARCHAR NOT NULL',
    ref: 'VARCHAR',
    in_vocabulary: 'BOOLEAN',
    value: 'VARCHAR',
    unit: 'VARCHAR',
    start_offset: 'INTEGER NOT NULL',
    end_offset: 'INTEGER NOT NULL',
    text: 'VARCHAR NOT NULL',
    stub: 'BOOLEAN NOT NULL',
  },
  answer_key: {
    item_id: 'VARCHAR NOT NULL',
    kind: 'VARCHAR NOT NULL',
    expected_refs: 'VARCHAR[] NOT NULL',
  },
  answer_key_amounts: {
    item_id: 'VARCHAR NOT NULL',
    ref: 'VARCHAR NOT NULL',
    value: 'VARCHAR NOT NULL',
    unit: 'VARCHAR NOT NULL',
    derived: 'VARCHAR',
  },
  vocabulary: {
    ref: 'VARCHAR NOT NULL',
  },
  items: {
    item_id: 'VARCHAR NOT NULL',
    question: 'VARCHAR NOT NULL',
  },
  served_refs: {
    record_id: 'BIGINT NOT NULL',
    ref: 'VARCHAR NOT NULL',
    declared: 'BOOLEAN NOT NULL',
    proven: 'BOOLEAN NOT NULL',
    proven_owned: 'BOOLEAN NOT NULL',
  },
  served_amounts: {
    record_id: 'BIGINT NOT NULL',
    value: 'VARCHAR NOT NULL',
    unit: 'VARCHAR NOT NULL',
    declared: 'BOOLEAN NOT NULL',
    proven: 'BOOLEAN NOT NULL',
    proven_owned: 'BOOLEAN NOT NULL',
  },
  passage_mentions: {
    record_id: 'BIGINT NOT NULL',
    evidence_index: 'INTEGER NOT NULL',
    passage_index: 'INTEGER NOT NULL',
    ref: 'VARCHAR NOT NULL',
    declared: 'BOOLEAN NOT NULL',
    proven: 'BOOLEAN NOT NULL',
    owned: 'BOOLEAN NOT NULL',
  },
  record_refusals: {
    record_id: 'BIGINT NOT NULL',
    system_id: 'VARCHAR NOT NULL',
    item_id: 'VARCHAR NOT NULL',
    attempt: 'INTEGER NOT NULL',
    flag: 'BOOLEAN NOT NULL',
    by_text: 'BOOLEAN',
    declared: 'BOOLEAN NOT NULL',
    proven: 'BOOLEAN NOT NULL',
  },
  // --- coverage.sql: derived by classify
  unsubmitted_jobs: {
    system_id: 'VARCHAR',
    job_id: 'VARCHAR',
    reason_code: 'VARCHAR',
    bound_by: 'VARCHAR[]',
    file: 'VARCHAR',
    line_no: 'BIGINT',
  },
  expected_records: {
    system_id: 'VARCHAR',
    item_id: 'VARCHAR',
    attempt: 'INTEGER',
    record_id: 'BIGINT',
  },
  coverage: {
    system_id: 'VARCHAR',
    registered: 'BOOLEAN',
    items: 'BIGINT',
    attempts_per_item: 'INTEGER',
    expected: 'BIGINT',
    submitted: 'BIGINT',
    missing: 'BIGINT',
    items_without_record: 'BIGINT',
    jobs_not_submitted: 'BIGINT',
    status: 'VARCHAR',
    expected_tools_missing: 'BIGINT',
    unexpected_tools: 'VARCHAR[]',
    replicate_of: 'VARCHAR',
  },
  // --- statistics-tables.sql: what score adds to section 5's results
  result_noise_floor: {
    system_id: 'VARCHAR NOT NULL',
    replicate: 'VARCHAR NOT NULL',
    metric: 'VARCHAR NOT NULL',
    items: 'BIGINT NOT NULL',
    discordant: 'BIGINT NOT NULL',
    p_value: 'DOUBLE NOT NULL',
    reason_code: 'VARCHAR',
  },
  result_constancy_flips: {
    system_id: 'VARCHAR NOT NULL',
    item_id: 'VARCHAR NOT NULL',
    metric: 'VARCHAR NOT NULL',
    attempts: 'INTEGER NOT NULL',
    met: 'INTEGER NOT NULL',
    served: 'INTEGER NOT NULL',
    missing: 'INTEGER NOT NULL',
    cause: 'VARCHAR NOT NULL',
    retrieval_cause: 'VARCHAR',
  },
  result_score_intervals: {
    system_id: 'VARCHAR NOT NULL',
    metric: 'VARCHAR NOT NULL',
    alpha: 'DOUBLE NOT NULL',
    declared_lower: 'DOUBLE',
    declared_upper: 'DOUBLE',
    proven_lower: 'DOUBLE',
    proven_upper: 'DOUBLE',
  },
  result_sign_test_adjustments: {
    system_a: 'VARCHAR NOT NULL',
    system_b: 'VARCHAR NOT NULL',
    metric: 'VARCHAR NOT NULL',
    discordant: 'BIGINT NOT NULL',
    p_value: 'DOUBLE NOT NULL',
    p_holm: 'DOUBLE NOT NULL',
    alpha: 'DOUBLE NOT NULL',
    reaches_alpha: 'BOOLEAN NOT NULL',
    fewest_discordant: 'BIGINT NOT NULL',
    wins_needed: 'BIGINT',
    caveats: 'VARCHAR[] NOT NULL',
    beyond_noise: 'BOOLEAN',
  },
  result_retrieval: {
    system_id: 'VARCHAR NOT NULL',
    evidence: 'VARCHAR NOT NULL',
    positives: 'BIGINT NOT NULL',
    missing: 'BIGINT NOT NULL',
    expected_served: 'BIGINT NOT NULL',
    near_miss: 'BIGINT NOT NULL',
    not_served: 'BIGINT NOT NULL',
  },
} as const satisfies Record<string, Readonly<Record<string, ColumnDeclaration>>>;

export type TableName = keyof typeof TABLES;

type CellOfType<T extends ColumnType> = T extends 'VARCHAR' | 'JSON'
  ? string
  : T extends 'BIGINT' | 'INTEGER' | 'DOUBLE'
    ? number
    : T extends 'BOOLEAN'
      ? boolean
      : readonly string[];
/** The value a column takes in a row builder: NULL (null) unless NOT NULL. */
export type CellOf<D extends ColumnDeclaration> = D extends `${infer T extends ColumnType} NOT NULL`
  ? CellOfType<T>
  : D extends ColumnType
    ? CellOfType<D> | null
    : never;

/** A row of `table`, keyed by column name, each value of its column's type. */
export type TableRow<T extends TableName> = {
  readonly [C in keyof (typeof TABLES)[T]]: (typeof TABLES)[T][C] extends ColumnDeclaration ? CellOf<(typeof TABLES)[T][C]> : never;
};

/** A table's columns, in the order DuckDB stores them. */
export function declaredColumns<T extends TableName>(table: T): ReadonlyArray<keyof (typeof TABLES)[T] & string> {
  return Object.keys(TABLES[table]) as Array<keyof (typeof TABLES)[T] & string>;
}

/** A table as DuckDB describes it: each column's name and declaration, in order. */
export type DescribedTables = ReadonlyMap<string, ReadonlyArray<readonly [name: string, declaration: string]>>;

/** Where the tables DuckDB made differ from the declarations, one line each (empty: they agree). */
export function declarationDifferences(
  described: DescribedTables,
  declared: Readonly<Record<string, Readonly<Record<string, string>>>> = TABLES,
): string[] {
  const found: string[] = [];
  for (const table of Object.keys(declared)) if (!described.has(table)) found.push(`${table} is declared but no .sql file creates it`);
  for (const [table, columns] of described) {
    const want = declared[table];
    if (want === undefined) {
      found.push(`${table} is created but not declared in pipeline/store/table-declarations.ts`);
      continue;
    }
    const got = columns.map(([name, d]) => `${name} ${d}`).join(', ');
    const expected = Object.entries(want)
      .map(([name, d]) => `${name} ${d}`)
      .join(', ');
    if (got !== expected) found.push(`${table}: the .sql file makes (${got}), the declaration says (${expected})`);
  }
  return found;
}
