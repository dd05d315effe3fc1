-- Coverage (SPEC §12.5), made by the classify stage once the items and the verify stage's tables
-- are in place. getvariable('attempts_per_item') is study.json protocol.attempts_per_item (NULL
-- when the study declares none), getvariable('expected_tools_declared') whether it declares
-- protocol.expected_tools. Documented in docs/tables.md.
DROP TABLE IF EXISTS coverage;
DROP TABLE IF EXISTS expected_records;
DROP TABLE IF EXISTS unsubmitted_jobs;

-- What the protocol expects (SPEC §13.1): every system (registered, or submitting) × item ×
-- attempt 1..protocol.attempts_per_item (without a protocol, 1..the highest attempt any accepted
-- record has), with the record that fills it or NULL. The denominator of every rate: a missing
-- record is a failure, so neither leaving a line out nor submitting only what one gets right can
-- lift a score.
CREATE TABLE expected_records AS
WITH study_systems AS (
  SELECT system_id FROM registered_systems
  UNION
  SELECT DISTINCT system_id FROM records
), attempts AS (
  SELECT CAST(range AS INTEGER) AS attempt
  FROM range(1, coalesce(CAST(getvariable('attempts_per_item') AS BIGINT), (SELECT max(attempt) FROM records), 0) + 1)
)
SELECT s.system_id, i.item_id, a.attempt, r.record_id
FROM study_systems s CROSS JOIN items i CROSS JOIN attempts a
LEFT JOIN records r ON r.system_id = s.system_id AND r.item_id = i.item_id AND r.attempt = a.attempt
ORDER BY s.system_id, i.item_id, a.attempt;

-- A job a commitment binding the system names (owned_commitments), and that no timeline of the
-- system's own records claims: an attempt made and not submitted. One row per system and job,
-- located at its first binding line.
CREATE TABLE unsubmitted_jobs AS
SELECT oc.system_id, oc.job_id, 'JOB_NOT_SUBMITTED' AS reason_code,
       list_sort(list_distinct(list(oc.bound_by))) AS bound_by,
       arg_min(oc.file, (oc.file, oc.line_no)) AS file,
       CAST(arg_min(oc.line_no, (oc.file, oc.line_no)) AS BIGINT) AS line_no
FROM owned_commitments oc
WHERE NOT EXISTS (SELECT 1 FROM chain_checks c WHERE c.system_id = oc.system_id AND c.job_id = oc.job_id)
GROUP BY oc.system_id, oc.job_id;

-- Per system (registered, or submitting): what the protocol expects and what came. expected is
-- items × attempts_per_item (NULL without a protocol); missing counts the (item, attempt) pairs
-- of the protocol no accepted record fills; items_without_record the items with no attempt at all;
-- status WITHDRAWN for a system with no accepted record (listed, left out of the all-systems
-- hypotheses), INCOMPLETE when a record is missing, else COMPLETE. expected_tools_missing counts
-- its records whose timeline lacks an expected tool (EXPECTED_TOOL_MISSING, SPEC §13.3),
-- unexpected_tools lists the tools its timelines log that are not expected (distinct, sorted);
-- both NULL when the study expects no tools. replicate_of the system a replicate campaign repeats
-- (study.json systems[].replicate_of), NULL for an original.
CREATE TABLE coverage AS
WITH study_systems AS (
  SELECT system_id, true AS registered FROM registered_systems
  UNION ALL
  SELECT DISTINCT system_id, false FROM records WHERE system_id NOT IN (SELECT system_id FROM registered_systems)
), protocol AS (
  SELECT CAST(getvariable('attempts_per_item') AS INTEGER) AS attempts
), filled AS (
  SELECT DISTINCT system_id, item_id, attempt FROM records
)
SELECT s.system_id, s.registered,
       CAST((SELECT count(*) FROM items) AS BIGINT) AS items,
       p.attempts AS attempts_per_item,
       CAST((SELECT count(*) FROM items) * p.attempts AS BIGINT) AS expected,
       CAST((SELECT count(*) FROM records r WHERE r.system_id = s.system_id) AS BIGINT) AS submitted,
       CASE WHEN p.attempts IS NULL THEN NULL ELSE CAST((
         SELECT count(*) FROM items i, range(1, p.attempts + 1) AS a(attempt)
         WHERE NOT EXISTS (SELECT 1 FROM filled f WHERE f.system_id = s.system_id AND f.item_id = i.item_id AND f.attempt = a.attempt)
       ) AS BIGINT) END AS missing,
       CAST((SELECT count(*) FROM items i WHERE NOT EXISTS (SELECT 1 FROM filled f WHERE f.system_id = s.system_id AND f.item_id = i.item_id)) AS BIGINT) AS items_without_record,
       CAST((SELECT count(*) FROM unsubmitted_jobs u WHERE u.system_id = s.system_id) AS BIGINT) AS jobs_not_submitted,
       CASE WHEN NOT EXISTS (SELECT 1 FROM records r WHERE r.system_id = s.system_id) THEN 'WITHDRAWN'
            WHEN EXISTS (SELECT 1 FROM expected_records e WHERE e.system_id = s.system_id AND e.record_id IS NULL) THEN 'INCOMPLETE'
            ELSE 'COMPLETE' END AS status,
       CASE WHEN getvariable('expected_tools_declared') THEN CAST((
         SELECT count(*) FROM timeline_tools t WHERE t.system_id = s.system_id AND t.check_tools = 'fail'
       ) AS BIGINT) END AS expected_tools_missing,
       CASE WHEN getvariable('expected_tools_declared') THEN coalesce((
         SELECT list_sort(list_distinct(flatten(list(t.unexpected_tools)))) FROM timeline_tools t WHERE t.system_id = s.system_id
       ), []::VARCHAR[]) END AS unexpected_tools,
       (SELECT rs.replicate_of FROM registered_systems rs WHERE rs.system_id = s.system_id) AS replicate_of
FROM study_systems s, protocol p;
