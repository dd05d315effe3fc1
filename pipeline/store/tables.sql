-- The ingest stage's tables (SPEC §2, §5.1). Every column is documented in docs/tables.md.
-- Rows are appended in input order: files sorted by the UTF-8 bytes of their name, lines in order.

-- What each stage consumed and produced; a stage whose inputs_digest is unchanged may be skipped.
-- The ingest row is written last, so a database with it is complete.
CREATE TABLE stage_runs (
  stage          VARCHAR NOT NULL PRIMARY KEY,
  inputs_digest  VARCHAR NOT NULL,
  inputs_json    JSON    NOT NULL,
  outputs_json   JSON    NOT NULL,
  tool_version   VARCHAR NOT NULL,
  duckdb_version VARCHAR NOT NULL
);

-- One row per submission file read.
CREATE TABLE submission_files (
  file       VARCHAR NOT NULL,
  sha256     VARCHAR NOT NULL,
  bytes      BIGINT  NOT NULL,
  lines_read BIGINT  NOT NULL,
  accepted   BIGINT  NOT NULL,
  rejected   BIGINT  NOT NULL
);

-- One row per accepted line.
CREATE TABLE records (
  record_id      BIGINT  NOT NULL,
  system_id      VARCHAR NOT NULL,
  item_id        VARCHAR NOT NULL,
  attempt        INTEGER NOT NULL,
  file           VARCHAR NOT NULL,
  line_no        BIGINT  NOT NULL,
  byte_offset    BIGINT  NOT NULL,
  line_sha256    VARCHAR NOT NULL,
  answer_text    VARCHAR NOT NULL,
  refused        BOOLEAN NOT NULL,
  truncated      BOOLEAN NOT NULL,
  evidence_count INTEGER NOT NULL,
  has_receipts   BOOLEAN NOT NULL,
  config_json    JSON             -- canonical JSON of the line's `config` (what produced it); NULL when absent
);

-- One row per evidence item of an accepted line.
CREATE TABLE evidence (
  record_id       BIGINT  NOT NULL,
  evidence_index  INTEGER NOT NULL,
  proof_json      JSON    NOT NULL,
  request_json    JSON,
  response_json   JSON,
  disclosure_json JSON,
  tlog_entry_json JSON
);

-- One row per accepted line that carries receipts.
CREATE TABLE receipts (
  record_id    BIGINT  NOT NULL,
  chain_json   JSON    NOT NULL,
  chain_sha256 VARCHAR NOT NULL
);

-- One row per rejected line.
CREATE TABLE rejects (
  file        VARCHAR NOT NULL,
  line_no     BIGINT  NOT NULL,
  byte_offset BIGINT  NOT NULL,
  line_sha256 VARCHAR NOT NULL,
  reason_code VARCHAR NOT NULL,
  column_no   INTEGER,
  detail      VARCHAR NOT NULL
);
