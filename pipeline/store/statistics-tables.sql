-- The score stage's statistics (SPEC §12.6), computed in TypeScript from section 5's result tables
-- (pipeline/statistics/results.ts) and appended here: DuckDB has no beta quantile and no exact
-- big-integer tail. Documented in docs/tables.md; emitted in results.json.
DROP TABLE IF EXISTS result_score_intervals;
DROP TABLE IF EXISTS result_sign_test_adjustments;
DROP TABLE IF EXISTS result_noise_floor;
DROP TABLE IF EXISTS result_retrieval;

CREATE TABLE result_score_intervals (
  system_id      VARCHAR NOT NULL,
  metric         VARCHAR NOT NULL,
  alpha          DOUBLE  NOT NULL,
  declared_lower DOUBLE,
  declared_upper DOUBLE,
  proven_lower   DOUBLE,
  proven_upper   DOUBLE
);

CREATE TABLE result_sign_test_adjustments (
  system_a          VARCHAR NOT NULL,
  system_b          VARCHAR NOT NULL,
  metric            VARCHAR NOT NULL,
  discordant        BIGINT  NOT NULL,
  p_value           DOUBLE  NOT NULL,
  p_holm            DOUBLE  NOT NULL,
  alpha             DOUBLE  NOT NULL,
  reaches_alpha     BOOLEAN NOT NULL,
  fewest_discordant BIGINT  NOT NULL,
  wins_needed       BIGINT,
  caveats           VARCHAR[] NOT NULL,
  beyond_noise      BOOLEAN            -- discordant > the A/A discordance of the system it favours; NULL without one
);

-- The noise floor (SPEC §13.2): each replicate campaign against its original, per metric of the
-- sign tests — how often two identical campaigns disagree. NOISE_FLOOR_EXCEEDED when their own
-- sign test reaches alpha: they were not one system, or not run alike.
CREATE TABLE result_noise_floor (
  system_id   VARCHAR NOT NULL,
  replicate   VARCHAR NOT NULL,
  metric      VARCHAR NOT NULL,
  items       BIGINT  NOT NULL,
  discordant  BIGINT  NOT NULL,
  p_value     DOUBLE  NOT NULL,
  reason_code VARCHAR
);

-- Retrieval and near misses (SPEC §13.2): per system and column (evidence: declared, proven), over
-- the expected positive records, an expected ref served, only a ref related to one by study.json
-- vocabulary.near_miss served (near_miss), or neither (not_served, a missing record among them).
CREATE TABLE result_retrieval (
  system_id       VARCHAR NOT NULL,
  evidence        VARCHAR NOT NULL,
  positives       BIGINT  NOT NULL,
  missing         BIGINT  NOT NULL,
  expected_served BIGINT  NOT NULL,
  near_miss       BIGINT  NOT NULL,
  not_served      BIGINT  NOT NULL
);
