-- Served passages (SPEC §6.2), derived from the verify tables by SQL, after evidence-links.sql
-- and evidence-ownership.sql, from passage_corpus (pipeline/verify/passage-corpus.ts).

-- Every passage of every evidence response (passage_corpus: matched against the frozen corpus by
-- the verify stage), in the two columns:
--   declared: it appears in an evidence response of the record;
--   proven:   its proof is VERIFIED; when the policy requires receipts, the proof's response
--             hash is the output commitment of an entry of an ANCHORED timeline of the same
--             record (the entry's canonical bytes are the response body as canonical JSON); the
--             seller the proof binds is pinned (evidence_ownership.seller_pinned, SPEC §12.4);
--             the passage is frozen corpus text (in_corpus, SPEC §12.4); and, when the policy
--             requires receipts and the study expects tools, the record's timeline logs every
--             expected tool in order (timeline_tools.check_tools 'pass', SPEC §13.3);
--   owned:    the evidence it rests on belongs to the record (evidence_ownership): its proof is
--             neither NOT_BOUND nor REUSED, nor, when receipts are required, the record's timeline.
-- reason_codes: why a passage is not proven served although its proof is VERIFIED —
--   EVIDENCE_SELLER_UNBOUND / EVIDENCE_SELLER_UNPINNED (its proof's), PASSAGE_NOT_IN_CORPUS
--   (its own) and, when receipts are required, EXPECTED_TOOL_MISSING (its record's timeline's);
--   the last two are listed whatever the proof's status.
CREATE TABLE served_passages AS
SELECT r.system_id, r.item_id, r.attempt, s.record_id, s.evidence_index, s.passage_index, s.ref, s.text,
       p.status AS proof_status,
       EXISTS (SELECT 1 FROM evidence_links l WHERE l.record_id = s.record_id AND l.evidence_index = s.evidence_index AND l.chain_status = 'ANCHORED') AS anchored_link,
       o.seller_pinned,
       s.in_corpus, s.corpus_match, s.corpus_text,
       list_concat(list_filter(o.reason_codes, c -> c IN ('EVIDENCE_SELLER_UNBOUND', 'EVIDENCE_SELLER_UNPINNED')),
                   CASE WHEN s.in_corpus THEN []::VARCHAR[] ELSE ['PASSAGE_NOT_IN_CORPUS'] END,
                   CASE WHEN getvariable('require_receipts') AND t.missing THEN ['EXPECTED_TOOL_MISSING'] ELSE []::VARCHAR[] END) AS reason_codes,
       TRUE AS declared,
       p.status = 'VERIFIED'
         AND (NOT getvariable('require_receipts')
              OR EXISTS (SELECT 1 FROM evidence_links l WHERE l.record_id = s.record_id AND l.evidence_index = s.evidence_index AND l.chain_status = 'ANCHORED'))
         AND o.seller_pinned
         AND s.in_corpus
         AND NOT (getvariable('require_receipts') AND coalesce(t.unreconciled, false)) AS proven,
       o.owned
         AND (NOT getvariable('require_receipts')
              OR coalesce((SELECT t.owned FROM evidence_ownership t WHERE t.evidence_kind = 'timeline' AND t.record_id = s.record_id), true)) AS owned
FROM passage_corpus s
JOIN records r ON r.record_id = s.record_id
JOIN proof_checks p ON p.record_id = s.record_id AND p.evidence_index = s.evidence_index
JOIN evidence_ownership o ON o.evidence_kind = 'proof' AND o.record_id = s.record_id AND o.evidence_index = s.evidence_index
-- A record's timeline and its expected tools (no row when the study expects none): missing when
-- one is not logged in order, unreconciled when that could not be shown (missing or undecided).
LEFT JOIN (SELECT record_id, check_tools = 'fail' AS missing, check_tools <> 'pass' AS unreconciled FROM timeline_tools) t ON t.record_id = s.record_id
ORDER BY s.record_id, s.evidence_index, s.passage_index;

-- Every rejected input line of the study, submissions and commitments: what rejects.csv lists.
CREATE TABLE input_rejects AS
SELECT * FROM rejects
UNION ALL
SELECT * FROM commitment_rejects;
