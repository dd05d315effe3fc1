-- The verify stage's tables (SPEC §5.2, §6.1, §6.2), rebuilt on every verify run.
-- Every column is documented in docs/tables.md.
DROP TABLE IF EXISTS seller_inconsistencies;
DROP TABLE IF EXISTS input_rejects;
DROP TABLE IF EXISTS commitment_rejects;
DROP TABLE IF EXISTS served_passages;
DROP TABLE IF EXISTS evidence_ownership;
DROP TABLE IF EXISTS evidence_reuse;
DROP TABLE IF EXISTS registered_systems;
DROP TABLE IF EXISTS owned_commitments;
DROP TABLE IF EXISTS seller_policy;
DROP TABLE IF EXISTS passage_corpus;
DROP TABLE IF EXISTS evidence_links;
DROP TABLE IF EXISTS timeline_tools;
DROP TABLE IF EXISTS chain_entries;
DROP TABLE IF EXISTS chain_checks;
DROP TABLE IF EXISTS proof_checks;

-- One row per evidence item: every check's outcome as a column, all reason codes as a list
-- (informational codes included, and listed again in informational_codes).
CREATE TABLE proof_checks (
  record_id              BIGINT    NOT NULL,
  evidence_index         INTEGER   NOT NULL,
  system_id              VARCHAR   NOT NULL,
  item_id                VARCHAR   NOT NULL,
  attempt                INTEGER   NOT NULL,
  proof_id               VARCHAR,
  spec_version           VARCHAR,
  algorithm              VARCHAR,
  status                 VARCHAR   NOT NULL,
  reason_codes           VARCHAR[] NOT NULL,
  informational_codes    VARCHAR[] NOT NULL,
  check_structure        VARCHAR   NOT NULL,
  check_request_hash     VARCHAR   NOT NULL,
  check_response_hash    VARCHAR   NOT NULL,
  check_chain            VARCHAR   NOT NULL,
  check_signature        VARCHAR   NOT NULL,
  check_key              VARCHAR   NOT NULL,
  check_tsa              VARCHAR   NOT NULL,
  check_time             VARCHAR   NOT NULL,
  check_commitments      VARCHAR   NOT NULL,
  check_disclosures      VARCHAR   NOT NULL,
  check_body_binding     VARCHAR   NOT NULL,
  check_identity         VARCHAR   NOT NULL,
  check_batch            VARCHAR   NOT NULL,
  check_tlog             VARCHAR   NOT NULL,
  proof_timestamp        VARCHAR,
  declared_chain_hash    VARCHAR,
  recomputed_chain_hash  VARCHAR,
  request_hash           VARCHAR,
  response_hash          VARCHAR,
  key_id                 VARCHAR,
  embedded_pubkey        VARCHAR,
  embedded_pubkey_pinned BOOLEAN,
  tsa_gen_time           VARCHAR,
  tsa_signer             VARCHAR,
  tsa_codes              VARCHAR[] NOT NULL,
  tsa_root_sha256        VARCHAR,
  committed_fields       VARCHAR[],
  opened_fields          VARCHAR[] NOT NULL,
  identity_json          JSON,
  identity_anchored      BOOLEAN,
  buyer_fingerprint      VARCHAR,
  buyer_fingerprint_source VARCHAR,
  seller                 VARCHAR,
  seller_source          VARCHAR,
  batch_status           VARCHAR,
  batch_id               VARCHAR,
  batch_root             VARCHAR,
  batch_leaf_index       BIGINT,
  batch_tree_size        BIGINT,
  witnessed_hash         VARCHAR,
  tlog_log_id            VARCHAR,
  tlog_log_index         BIGINT,
  tlog_integrated_time   VARCHAR,
  tlog_kind              VARCHAR   NOT NULL,
  tlog_artifact          VARCHAR   NOT NULL,
  tlog_entry_signature   VARCHAR   NOT NULL,
  tlog_set               VARCHAR   NOT NULL,
  tlog_inclusion         VARCHAR   NOT NULL,
  tlog_checkpoint        VARCHAR   NOT NULL,
  tlog_log_key           VARCHAR   NOT NULL,
  independent_witnesses  INTEGER   NOT NULL,
  problems               VARCHAR[] NOT NULL
);

-- One row per AER-1 timeline (docs/aer1.md).
CREATE TABLE chain_checks (
  record_id                     BIGINT    NOT NULL,
  system_id                     VARCHAR   NOT NULL,
  item_id                       VARCHAR   NOT NULL,
  attempt                       INTEGER   NOT NULL,
  job_id                        VARCHAR,
  form                          VARCHAR,
  revision                      VARCHAR,
  construction                  VARCHAR,
  status                        VARCHAR   NOT NULL,
  reason_codes                  VARCHAR[] NOT NULL,
  -- The codes of reason_codes that never change the status (SPEC §12.3): COMMITMENT_FOREIGN,
  -- COMMITMENT_SIGNATURE_INVALID.
  informational_codes           VARCHAR[] NOT NULL,
  check_structure               VARCHAR   NOT NULL,
  check_revision                VARCHAR   NOT NULL,
  check_genesis                 VARCHAR   NOT NULL,
  check_seq                     VARCHAR   NOT NULL,
  check_job                     VARCHAR   NOT NULL,
  check_close                   VARCHAR   NOT NULL,
  check_links                   VARCHAR   NOT NULL,
  check_commitment_found        VARCHAR   NOT NULL,
  check_commitment_wellformed   VARCHAR   NOT NULL,
  check_commitment_count        VARCHAR   NOT NULL,
  check_commitment_final_digest VARCHAR   NOT NULL,
  check_commitment_timely       VARCHAR   NOT NULL,
  check_commitment_time_plausible VARCHAR NOT NULL,
  check_commitment_consistent   VARCHAR   NOT NULL,
  entry_count                   INTEGER   NOT NULL,
  final_entry_digest            VARCHAR,
  commitment_witness            VARCHAR,
  commitment_published_at       VARCHAR,
  -- How the compared commitment came in ('intake': a system's own file; 'operator': the
  -- operator-collected file) and its witness: the token that dated its file, and when (SPEC §5.2).
  commitment_route              VARCHAR,
  commitment_witnessed_by       VARCHAR,
  commitment_witnessed_at       VARCHAR,
  provenance_classes            VARCHAR[] NOT NULL,
  problems                      VARCHAR[] NOT NULL
);

-- One row per entry of a timeline whose entries are all well-formed and numbered 1, 2, … (seq is
-- then the position; a chain with a seq gap has none; a -06 timeline without seq is numbered by
-- position): the recomputed entry digest and the output commitment (SHA-256 of the decoded
-- canonical_bytes), both computed. tool and provenance_class are NULL for a -06 entry without them.
CREATE TABLE chain_entries (
  record_id         BIGINT  NOT NULL,
  seq               INTEGER NOT NULL,
  entry_digest      VARCHAR NOT NULL,
  entry_id          VARCHAR NOT NULL,
  output_commitment VARCHAR NOT NULL,
  tool              VARCHAR,
  provenance_class  VARCHAR
);

-- Expected tools (SPEC §13.3): one row per timeline when study.json declares
-- protocol.expected_tools (none otherwise), reconciled apart from its anchoring
-- (pipeline/evidence/aer1/expected-tools.ts): expected_tools the protocol's names, logged_as the
-- system's names for them, logged_tools each entry's tool in order (empty when the entries could
-- not be read, check skipped), missing_tools the protocol's names not found in order,
-- unexpected_tools the tools logged that are none of logged_as (distinct, sorted).
CREATE TABLE timeline_tools (
  record_id        BIGINT    NOT NULL,
  system_id        VARCHAR   NOT NULL,
  item_id          VARCHAR   NOT NULL,
  attempt          INTEGER   NOT NULL,
  job_id           VARCHAR,
  expected_tools   VARCHAR[] NOT NULL,
  logged_as        VARCHAR[] NOT NULL,
  logged_tools     VARCHAR[] NOT NULL,
  check_tools      VARCHAR   NOT NULL,
  missing_tools    VARCHAR[] NOT NULL,
  unexpected_tools VARCHAR[] NOT NULL,
  reason_codes     VARCHAR[] NOT NULL
);

-- One row per malformed line of the commitments file (COMMITMENT_MALFORMED), in exactly the
-- columns of the ingest stage's rejects (so the two can be listed as one): a line never counts,
-- and never disappears (docs/aer1.md).
CREATE TABLE commitment_rejects AS SELECT * FROM rejects LIMIT 0;

-- The systems study.json registers (SPEC §6.2), appended by the verify stage: none when it
-- registers none.
CREATE TABLE registered_systems (
  system_id          VARCHAR   NOT NULL,
  buyer_fingerprints VARCHAR[] NOT NULL,
  agent_identities   VARCHAR[] NOT NULL,
  affiliated         BOOLEAN   NOT NULL, -- affiliated with the operator: marked in the report, changes nothing computed
  replicate_of       VARCHAR             -- a replicate campaign of this system (the noise floor); NULL for an original
);

-- The commitments that bind a system (SPEC §12.3, §12.5), appended by the verify stage: one row
-- per well-formed commitment line and system it binds — the system that submitted it through
-- intake (bound_by 'intake'), the system one of whose agent keys signed it ('signature'). What
-- coverage reads to find a committed job none of the system's records claims (JOB_NOT_SUBMITTED).
CREATE TABLE owned_commitments (
  system_id VARCHAR NOT NULL,
  job_id    VARCHAR NOT NULL,
  bound_by  VARCHAR NOT NULL,
  file      VARCHAR NOT NULL,
  line_no   BIGINT  NOT NULL
);

-- Whose proofs can prove a passage served (SPEC §12.4): the trust policy's `sellers`, appended by
-- the verify stage as one row — any_seller for the weakened "sellers": "any", else the pinned
-- list. No row (a policy frozen without sellers): no seller is pinned.
CREATE TABLE seller_policy (
  any_seller BOOLEAN   NOT NULL,
  sellers    VARCHAR[] NOT NULL
);

-- Every passage of every evidence response, matched against the frozen corpus by the verify
-- stage (pipeline/verify/passage-corpus.ts, SPEC §12.4): corpus_match says how ('section' or
-- 'excerpt' when it is corpus text; 'empty', 'too_short', 'unknown_ref' or 'not_found' when not),
-- corpus_text is the matched span as the corpus writes it (NFC), NULL when it does not match.
CREATE TABLE passage_corpus (
  record_id      BIGINT  NOT NULL,
  evidence_index INTEGER NOT NULL,
  passage_index  INTEGER NOT NULL,
  ref            VARCHAR,
  text           VARCHAR,
  corpus_match   VARCHAR NOT NULL,
  in_corpus      BOOLEAN NOT NULL,
  corpus_text    VARCHAR
);
