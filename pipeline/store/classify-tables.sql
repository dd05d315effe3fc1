-- The base tables the classify stage adds for section 5 (SPEC §6.3). Documented in docs/tables.md.
DROP TABLE IF EXISTS assertions;
DROP TABLE IF EXISTS answer_key;
DROP TABLE IF EXISTS answer_key_amounts;
DROP TABLE IF EXISTS vocabulary;
DROP TABLE IF EXISTS items;
DROP TABLE IF EXISTS served_refs;
DROP TABLE IF EXISTS served_amounts;
DROP TABLE IF EXISTS passage_mentions;
DROP TABLE IF EXISTS record_refusals;

CREATE TABLE assertions (
  record_id       BIGINT  NOT NULL,
  system_id       VARCHAR NOT NULL,
  item_id         VARCHAR NOT NULL,
  attempt         INTEGER NOT NULL,
  assertion_id    VARCHAR NOT NULL,
  assertion_index INTEGER NOT NULL,
  kind            VARCHAR NOT NULL,
  ref             VARCHAR,
  in_vocabulary   BOOLEAN,
  value           VARCHAR,
  unit            VARCHAR,
  start_offset    INTEGER NOT NULL,
  end_offset      INTEGER NOT NULL,
  text            VARCHAR NOT NULL,
  stub            BOOLEAN NOT NULL
);

CREATE TABLE answer_key (
  item_id       VARCHAR   NOT NULL,
  kind          VARCHAR   NOT NULL,
  expected_refs VARCHAR[] NOT NULL
);

-- derived: how the amount is computed (a sum, a conversion), in the key's words; NULL when the
-- article's frozen text contains it (freeze checked it: ANSWER_KEY_AMOUNT_NOT_IN_CORPUS).
CREATE TABLE answer_key_amounts (
  item_id VARCHAR NOT NULL,
  ref     VARCHAR NOT NULL,
  value   VARCHAR NOT NULL,
  unit    VARCHAR NOT NULL,
  derived VARCHAR
);

CREATE TABLE vocabulary (ref VARCHAR NOT NULL);

CREATE TABLE items (item_id VARCHAR NOT NULL, question VARCHAR NOT NULL);

CREATE TABLE served_refs (
  record_id BIGINT  NOT NULL,
  ref       VARCHAR NOT NULL,
  declared  BOOLEAN NOT NULL,
  proven    BOOLEAN NOT NULL,
  proven_owned BOOLEAN NOT NULL
);

CREATE TABLE served_amounts (
  record_id BIGINT  NOT NULL,
  value     VARCHAR NOT NULL,
  unit      VARCHAR NOT NULL,
  declared  BOOLEAN NOT NULL,
  proven    BOOLEAN NOT NULL,
  proven_owned BOOLEAN NOT NULL
);

CREATE TABLE passage_mentions (
  record_id      BIGINT  NOT NULL,
  evidence_index INTEGER NOT NULL,
  passage_index  INTEGER NOT NULL,
  ref            VARCHAR NOT NULL,
  declared       BOOLEAN NOT NULL,
  proven         BOOLEAN NOT NULL,
  owned          BOOLEAN NOT NULL
);

-- Each record's refusal (SPEC §13.1): flag is the submission's `refused` flag (the system's
-- declaration, never the class); by_text whether the frozen refusal_pattern matches with at most
-- refusal.max_tail_chars characters outside the match (NULL without a pattern); declared and proven
-- the judgement, the same rule in both columns: by_text, no amount, not truncated, and every
-- citation served to the record (as declared; as proven and owned). Without a pattern: the flag,
-- unless truncated.
CREATE TABLE record_refusals (
  record_id BIGINT  NOT NULL,
  system_id VARCHAR NOT NULL,
  item_id   VARCHAR NOT NULL,
  attempt   INTEGER NOT NULL,
  flag      BOOLEAN NOT NULL,
  by_text   BOOLEAN,
  declared  BOOLEAN NOT NULL,
  proven    BOOLEAN NOT NULL
);
