-- A service that answers one request two ways (SPEC §13.1), after served-passages.sql: the same
-- request (same request_hash, same item) to the same pinned seller, served different sets of
-- (ref, text) — to two systems, or to two attempts of one. The systems were then not served
-- alike, whatever their answers.
--
-- Counted: VERIFIED proofs BOUND to the record's system (a registered buyer fingerprint: a
--   participant cannot make another system's proof its own) whose seller is bound and pinned
--   (evidence_ownership.seller_pinned; with "sellers": "any", every bound seller), and whose
--   request_hash the issuer's signature covers: a chain input below 3.0, an opened commitment
--   in 3.x (an unopened hashes.request is the issuer's word, and anybody's edit), and whose
--   response body was given and hashes to the proof's response hash (check_response_hash 'pass';
--   a VERIFIED 3.x proof then also binds it): a proof submitted without its body shows nothing
--   served, which is not "served nothing". A proof that is not VERIFIED, not bound, from no pinned
--   seller or without its body counts for nothing: a participant must not be able to fabricate
--   an inconsistency against the seller with evidence that proves nothing.
-- What each proof served: the sorted set of (ref, text) of its response's passages (passage_corpus),
--   empty when it served none. Requests are told apart by their hash only: the check cannot show
--   that systems sending different requests were served alike.
-- One row per counted proof of each such request (reason_code SELLER_INCONSISTENT), its served set
--   as two lists in step (served_refs[i], served_texts[i]); emit groups them by request.
CREATE TABLE seller_inconsistencies AS
WITH passages AS (
  -- Sets compared by the digests of their members: no list of passage texts is built for a proof
  -- that agrees with every other (at 100,000 records that would hold every served text at once).
  SELECT record_id, evidence_index, list_sort(list_distinct(list(sha256(to_json({'ref': ref, 'text': text}))))) AS digests
  FROM passage_corpus
  GROUP BY record_id, evidence_index
), counted AS (
  SELECT p.record_id, p.evidence_index, p.system_id, p.item_id, p.attempt, p.request_hash, p.seller,
         coalesce(s.digests, []) AS digests
  FROM proof_checks p
  JOIN evidence_ownership o ON o.evidence_kind = 'proof' AND o.record_id = p.record_id AND o.evidence_index = p.evidence_index
  LEFT JOIN passages s ON s.record_id = p.record_id AND s.evidence_index = p.evidence_index
  WHERE p.status = 'VERIFIED' AND o.binding = 'BOUND' AND o.seller_pinned AND p.seller IS NOT NULL
    AND p.request_hash IS NOT NULL
    AND (p.algorithm <> 'commitments' OR list_contains(p.opened_fields, 'request_hash'))
    AND p.check_response_hash = 'pass'
), split AS (
  SELECT item_id, request_hash, seller FROM counted GROUP BY item_id, request_hash, seller HAVING count(DISTINCT digests) > 1
), listed AS (
  SELECT c.* FROM counted c SEMI JOIN split USING (item_id, request_hash, seller)
), served AS (
  -- What each listed proof served, as a sorted set of (ref, text).
  SELECT pc.record_id, pc.evidence_index, list_sort(list_distinct(list({'ref': pc.ref, 'text': pc.text}))) AS served
  FROM passage_corpus pc SEMI JOIN listed l ON l.record_id = pc.record_id AND l.evidence_index = pc.evidence_index
  GROUP BY pc.record_id, pc.evidence_index
)
SELECT 'SELLER_INCONSISTENT' AS reason_code, l.item_id, l.request_hash, l.seller, l.system_id, l.attempt,
       l.record_id, l.evidence_index,
       [x.ref FOR x IN coalesce(s.served, [])] AS served_refs, [x.text FOR x IN coalesce(s.served, [])] AS served_texts
FROM listed l
LEFT JOIN served s ON s.record_id = l.record_id AND s.evidence_index = l.evidence_index
ORDER BY l.item_id, l.request_hash, l.seller, l.system_id, l.attempt, l.record_id, l.evidence_index;
