-- The fixture freeze's dry run runs section 5 on (SPEC §13.1, docs/preregistration.md): rows of
-- the base tables a class is computed from, covering every combination of their flags, so that a
-- branch yielding an undeclared (or no) class on some combination is refused at freeze, not after
-- the deadline by `run`. Run after every base table's DDL but coverage.sql, which then derives
-- expected_records and coverage from these rows, as the classify stage does from real ones.
-- Some combinations never occur in a real run (a refusal judged on a truncated answer): the
-- fixture over-covers, so that nothing the tool may produce is left out.
--
-- Three registered systems: fixture-a makes attempt 1 of each item, fixture-b attempts 1 and 2 of
-- the protocol's 2 (so records are missing, and present), fixture-withdrawn nothing (WITHDRAWN).
-- One item per combination of a record's flags (96): its kind (positive, negative) × truncated ×
-- the `refused` flag × record_refusals.by_text (NULL, true, false) × .declared × .proven.
-- Every record of fixture-b's attempt 1 carries every combination of an assertion's flags:
-- a citation (648): stub × in_vocabulary × expected by the key × served_refs (none, or each of
-- the 8 combinations of declared, proven, proven_owned) × passage_mentions (none, or each of the 8
-- of declared, proven, owned); an amount (36): stub × the key's amount for the item ×
-- served_amounts (none, or each of the 8 of declared, proven, proven_owned).
SET VARIABLE attempts_per_item = 2;

CREATE TEMP TABLE fixture_record_flags AS
SELECT r AS combo, 'fixture-item-' || lpad(CAST(r AS VARCHAR), 2, '0') AS item_id,
       CASE WHEN r % 2 = 0 THEN 'positive' ELSE 'negative' END AS kind,
       (r // 2) % 2 = 1 AS truncated,
       (r // 4) % 2 = 1 AS flag,
       CASE (r // 8) % 3 WHEN 0 THEN NULL WHEN 1 THEN true ELSE false END AS by_text,
       (r // 24) % 2 = 1 AS declared,
       (r // 48) % 2 = 1 AS proven
FROM range(96) t(r);

-- A served or mentioned flag set: 0 is no row, 1..8 each combination of three booleans.
CREATE TEMP TABLE fixture_assertion_flags AS
SELECT c AS combo, 'citation' AS kind, 'FX-' || lpad(CAST(c AS VARCHAR), 3, '0') AS ref, NULL::VARCHAR AS value,
       c % 2 = 1 AS stub, (c // 2) % 2 = 1 AS in_vocabulary, (c // 4) % 2 = 1 AS expected, false AS key_amount,
       (c // 8) % 9 AS served, (c // 72) % 9 AS mentioned
FROM range(648) t(c)
UNION ALL
SELECT 648 + m, 'amount', NULL, CAST(1000 + m AS VARCHAR),
       m % 2 = 1, NULL, false, (m // 2) % 2 = 1,
       (m // 4) % 9, 0
FROM range(36) t(m);

-- A replicate campaign of fixture-a too (it submits nothing), so a plan's pairing of replicates runs.
INSERT INTO registered_systems
SELECT system_id, [], [], false, replicate_of
FROM (VALUES ('fixture-a', NULL), ('fixture-b', NULL), ('fixture-withdrawn', NULL), ('fixture-a-replicate', 'fixture-a')) s(system_id, replicate_of);

INSERT INTO items SELECT item_id, 'fixture question ' || combo FROM fixture_record_flags;

INSERT INTO answer_key
SELECT item_id, kind, (SELECT list(ref ORDER BY ref) FROM fixture_assertion_flags WHERE expected) FROM fixture_record_flags;

INSERT INTO answer_key_amounts
SELECT r.item_id, 'FX-000', a.value, 'EUR', NULL FROM fixture_record_flags r, fixture_assertion_flags a WHERE a.key_amount;

INSERT INTO vocabulary SELECT ref FROM fixture_assertion_flags WHERE in_vocabulary;

CREATE TEMP TABLE fixture_records AS
SELECT row_number() OVER (ORDER BY s.system_id, f.combo, s.attempt) AS record_id, s.system_id, f.item_id, s.attempt, f.*
FROM fixture_record_flags f, (VALUES ('fixture-a', 1), ('fixture-b', 1), ('fixture-b', 2)) s(system_id, attempt);

INSERT INTO records
SELECT record_id, system_id, item_id, attempt, 'fixture.jsonl', record_id, 0, '', '', flag, truncated, 0, attempt = 2, NULL
FROM fixture_records;

INSERT INTO record_refusals
SELECT record_id, system_id, item_id, attempt, flag, by_text, declared, proven FROM fixture_records;

CREATE TEMP TABLE fixture_assertions AS
SELECT r.record_id, r.system_id, r.item_id, r.attempt, a.*
FROM fixture_records r, fixture_assertion_flags a
WHERE r.system_id = 'fixture-b' AND r.attempt = 1 AND r.combo < 4;

INSERT INTO assertions
SELECT record_id, system_id, item_id, attempt, system_id || '/' || item_id || '/' || attempt || '/' || combo, combo,
       kind, ref, in_vocabulary, value, CASE WHEN kind = 'amount' THEN 'EUR' END, 0, 1, coalesce(ref, value), stub
FROM fixture_assertions;

INSERT INTO served_refs
SELECT record_id, ref, (served - 1) % 2 = 1, ((served - 1) // 2) % 2 = 1, ((served - 1) // 4) % 2 = 1
FROM fixture_assertions WHERE kind = 'citation' AND served > 0;

INSERT INTO served_amounts
SELECT record_id, value, 'EUR', (served - 1) % 2 = 1, ((served - 1) // 2) % 2 = 1, ((served - 1) // 4) % 2 = 1
FROM fixture_assertions WHERE kind = 'amount' AND served > 0;

INSERT INTO passage_mentions
SELECT record_id, 0, 0, ref, (mentioned - 1) % 2 = 1, ((mentioned - 1) // 2) % 2 = 1, ((mentioned - 1) // 4) % 2 = 1
FROM fixture_assertions WHERE mentioned > 0;

DROP TABLE fixture_assertions;
DROP TABLE fixture_records;
DROP TABLE fixture_assertion_flags;
DROP TABLE fixture_record_flags;
