-- Served passages (SPEC §6.2), derived from the verify tables by SQL, after evidence-links.sql
-- and evidence-ownership.sql.

-- Every passage of every evidence response, in the two columns:
--   declared: it appears in an evidence response of the record;
--   proven:   its proof is VERIFIED and, when the policy requires receipts, the proof's response
--             hash is the output commitment of an entry of an ANCHORED timeline of the same
--             record (the entry's canonical bytes are the response body as canonical JSON);
--   owned:    the evidence it rests on belongs to the record (evidence_ownership): its proof is
--             neither NOT_BOUND nor REUSED, nor, when receipts are required, the record's timeline.
CREATE TABLE served_passages AS
WITH counted AS (
  SELECT record_id, evidence_index, response_json,
         CASE WHEN json_type(response_json, '$.passages') = 'ARRAY' THEN CAST(json_array_length(response_json, '$.passages') AS BIGINT) ELSE 0 END AS n
  FROM evidence
), indexed AS (
  SELECT record_id, evidence_index, response_json, unnest(range(n)) AS i FROM counted
), passages AS (
  SELECT record_id, evidence_index, CAST(i AS INTEGER) AS passage_index,
         json_extract_string(response_json, '$.passages[' || i || '].ref') AS ref,
         json_extract_string(response_json, '$.passages[' || i || '].text') AS text
  FROM indexed
)
SELECT r.system_id, r.item_id, r.attempt, s.record_id, s.evidence_index, s.passage_index, s.ref, s.text,
       p.status AS proof_status,
       EXISTS (SELECT 1 FROM evidence_links l WHERE l.record_id = s.record_id AND l.evidence_index = s.evidence_index AND l.chain_status = 'ANCHORED') AS anchored_link,
       TRUE AS declared,
       p.status = 'VERIFIED'
         AND (NOT getvariable('require_receipts')
              OR EXISTS (SELECT 1 FROM evidence_links l WHERE l.record_id = s.record_id AND l.evidence_index = s.evidence_index AND l.chain_status = 'ANCHORED')) AS proven,
       o.owned
         AND (NOT getvariable('require_receipts')
              OR coalesce((SELECT t.owned FROM evidence_ownership t WHERE t.evidence_kind = 'timeline' AND t.record_id = s.record_id), true)) AS owned
FROM passages s
JOIN records r ON r.record_id = s.record_id
JOIN proof_checks p ON p.record_id = s.record_id AND p.evidence_index = s.evidence_index
JOIN evidence_ownership o ON o.evidence_kind = 'proof' AND o.record_id = s.record_id AND o.evidence_index = s.evidence_index
ORDER BY s.record_id, s.evidence_index, s.passage_index;

-- Every rejected input line of the study, submissions and commitments: what rejects.csv lists.
CREATE TABLE input_rejects AS
SELECT * FROM rejects
UNION ALL
SELECT * FROM commitment_rejects;
