-- Flips attributed (SPEC §13.2), by the score stage after section 5: the pipeline's own SQL, so no
-- plan can call a retrieval flip "writing". Reads the base tables (expected_records, records,
-- answer_key, record_refusals, served_refs, proof_checks, evidence_ownership) and the plan's
-- classes as materialised (result_assertion_classes). Documented in docs/tables.md.
--
-- The outcomes, per expected attempt (a missing attempt meets none; a TRUNCATED one cites nothing):
--   positives_citing_expected/{declared,proven}: a positive item's answer cites an expected
--     reference (a citation GROUNDED_EXPECTED in that column) and is not truncated;
--   refusal_rate_negatives/{declared,proven}: a negative item's answer is a refusal (record_refusals).
-- A flip is an item whose outcome is met in some expected attempts and not in others. Its cause,
-- over the attempts that have a record:
--   retrieval when an expected article was served (served_refs under one of the item's expected
--     refs, declared; proven_owned for /proven) in some and not in others: REQUEST unless every
--     such attempt sent the same requests, SERVICE when it did — the same set of request hashes,
--     non-empty, each from a VERIFIED proof whose signature covers the request hash (below 3.0, or
--     opened in 3.x) and that the record owns (bound, not reused): a participant cannot blame the
--     service with a request hash nobody signed, or with another system's proof;
--   writing when the expected article was served alike and the outcome still differs;
--   missing when the attempts that have a record agree: only an attempt left out differs.
INSERT INTO result_constancy_flips
WITH served AS (
  SELECT sr.record_id, bool_or(sr.declared) AS declared, bool_or(sr.proven_owned) AS proven
  FROM served_refs sr
  JOIN records r ON r.record_id = sr.record_id
  JOIN answer_key k ON k.item_id = r.item_id
  WHERE list_contains(k.expected_refs, sr.ref)
  GROUP BY sr.record_id
), cited AS (
  SELECT system_id, item_id, attempt,
         bool_or(class_declared = 'GROUNDED_EXPECTED') AS declared,
         bool_or(class_proven = 'GROUNDED_EXPECTED') AS proven
  FROM result_assertion_classes WHERE kind = 'citation'
  GROUP BY ALL
), requests AS (
  SELECT p.record_id, string_agg(DISTINCT p.request_hash, ',' ORDER BY p.request_hash) AS hashes
  FROM proof_checks p
  JOIN evidence_ownership o ON o.evidence_kind = 'proof' AND o.record_id = p.record_id AND o.evidence_index = p.evidence_index
  WHERE p.status = 'VERIFIED' AND o.owned AND p.request_hash IS NOT NULL
    AND (p.algorithm <> 'commitments' OR list_contains(p.opened_fields, 'request_hash'))
  GROUP BY p.record_id
), attempts AS (
  SELECT e.system_id, e.item_id, e.attempt, k.kind AS item_kind,
         e.record_id IS NULL AS missing,
         e.record_id IS NOT NULL AND NOT r.truncated AS whole,
         coalesce(s.declared, false) AS served_declared,
         coalesce(s.proven, false) AS served_proven,
         coalesce(c.declared, false) AS cited_declared,
         coalesce(c.proven, false) AS cited_proven,
         coalesce(rr.declared, false) AS refused_declared,
         coalesce(rr.proven, false) AS refused_proven,
         q.hashes
  FROM expected_records e
  JOIN answer_key k ON k.item_id = e.item_id
  LEFT JOIN records r ON r.record_id = e.record_id
  LEFT JOIN served s ON s.record_id = e.record_id
  LEFT JOIN cited c ON e.record_id IS NOT NULL AND c.system_id = e.system_id AND c.item_id = e.item_id AND c.attempt = e.attempt
  LEFT JOIN record_refusals rr ON rr.record_id = e.record_id
  LEFT JOIN requests q ON q.record_id = e.record_id
), outcomes AS (
  SELECT a.system_id, a.item_id, a.attempt, a.missing, a.hashes, m.metric,
         CASE m.metric
           WHEN 'positives_citing_expected/declared' THEN a.whole AND a.cited_declared
           WHEN 'positives_citing_expected/proven' THEN a.whole AND a.cited_proven
           WHEN 'refusal_rate_negatives/declared' THEN NOT a.missing AND a.refused_declared
           ELSE NOT a.missing AND a.refused_proven END AS met,
         CASE WHEN m.metric LIKE '%/declared' THEN a.served_declared ELSE a.served_proven END AS served
  FROM attempts a
  JOIN (VALUES ('positives_citing_expected/declared', 'positive'), ('positives_citing_expected/proven', 'positive'),
               ('refusal_rate_negatives/declared', 'negative'), ('refusal_rate_negatives/proven', 'negative')) AS m(metric, item_kind)
    ON m.item_kind = a.item_kind
), items AS (
  SELECT system_id, item_id, metric,
         count(*) AS attempts,
         count(*) FILTER (met) AS met,
         count(*) FILTER (served) AS served,
         count(*) FILTER (missing) AS missing,
         count(DISTINCT met) FILTER (NOT missing) AS met_values,
         count(DISTINCT served) FILTER (NOT missing) AS served_values,
         count(DISTINCT coalesce(hashes, '')) FILTER (NOT missing) AS request_sets,
         bool_or(hashes IS NULL) FILTER (NOT missing) AS request_unknown
  FROM outcomes
  GROUP BY system_id, item_id, metric
)
SELECT system_id, item_id, metric, CAST(attempts AS INTEGER), CAST(met AS INTEGER), CAST(served AS INTEGER), CAST(missing AS INTEGER),
       CASE WHEN served_values > 1 THEN 'retrieval' WHEN met_values > 1 THEN 'writing' ELSE 'missing' END AS cause,
       CASE WHEN served_values > 1 THEN CASE WHEN request_sets = 1 AND NOT request_unknown THEN 'SERVICE' ELSE 'REQUEST' END END AS retrieval_cause
FROM items
WHERE met > 0 AND met < attempts
ORDER BY system_id, item_id, metric;
