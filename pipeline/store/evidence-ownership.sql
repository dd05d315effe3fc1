-- Evidence belongs to the record that submits it (SPEC §6.2; docs/ownership.md). A verified proof
-- certifies one call by one buyer: copied into another system's line, or reused for another item
-- or attempt, it proves nothing there.
--
-- binding (NULL when no system is registered with a buyer fingerprint: no systems, or
--   "binding": "none", where systems are registered by id alone): a proof is BOUND when the buyer fingerprint
--   its chain hash covers (proof_checks.buyer_fingerprint) is registered for the record's system,
--   else NOT_BOUND; a timeline is BOUND through a BOUND proof of the same record it links to.
-- claims: the record counts as a user of the evidence — a VERIFIED proof or an ANCHORED timeline
--   that is not NOT_BOUND. Evidence that proves nothing, or that another system's buyer paid for,
--   cancels nobody's credit.
-- Reuse is keyed only on what a signature or a commitment binds (SPEC §12.3): a proof's chain hash
--   (the issuer's signature covers it), a timeline's job and final entry digest (a commitment
--   binds them). A proof_id is listed when shared but never cancels (nothing signs it); a response
--   hash is no key at all (a deterministic service answers two calls with the same bytes).
-- A key claimed by more than one record cancels: EVIDENCE_REUSED on each claimant — with
--   registered systems only among the claimants of one system (a bound proof is its system's own;
--   nothing another system submits can cancel it), without registration among all claimants.
-- seller (SPEC §12.4): the seller the proof binds (proof_checks.seller: the recomputed preimage
--   below 3.0, an opened 3.x commitment; never the served field alone) against the trust policy's
--   sellers (seller_policy): EVIDENCE_SELLER_UNBOUND when it binds none, EVIDENCE_SELLER_UNPINNED
--   when it binds one the policy does not list (listed for VERIFIED proofs: any other proves
--   nothing served already); seller_pinned is then false and its passages are not proven served
--   (served-passages.sql). With "sellers": "any" no seller is checked (seller_pinned true).
--   Neither code changes `owned` (whose the evidence is) nor a proof's claims.
-- In study-verify.ts the registered systems and the seller policy are appended first.
CREATE TEMP TABLE proof_uses AS
SELECT p.record_id, p.evidence_index, p.system_id, p.item_id, p.attempt, p.proof_id, p.status,
       p.declared_chain_hash, p.response_hash, p.buyer_fingerprint, p.seller, p.seller_source,
       coalesce((SELECT any_seller FROM seller_policy), false)
         OR (p.seller IS NOT NULL AND list_contains(coalesce((SELECT sellers FROM seller_policy), []::VARCHAR[]), p.seller)) AS seller_pinned,
       CASE WHEN p.status <> 'VERIFIED' OR coalesce((SELECT any_seller FROM seller_policy), false) THEN NULL
            WHEN p.seller IS NULL THEN 'EVIDENCE_SELLER_UNBOUND'
            WHEN NOT list_contains(coalesce((SELECT sellers FROM seller_policy), []::VARCHAR[]), p.seller) THEN 'EVIDENCE_SELLER_UNPINNED' END AS seller_code,
       CASE WHEN NOT EXISTS (SELECT 1 FROM registered_systems WHERE len(buyer_fingerprints) > 0) THEN NULL
            WHEN EXISTS (SELECT 1 FROM registered_systems s
                         WHERE s.system_id = p.system_id AND list_contains(s.buyer_fingerprints, p.buyer_fingerprint)) THEN 'BOUND'
            ELSE 'NOT_BOUND' END AS binding
FROM proof_checks p;

CREATE TEMP TABLE timeline_uses AS
SELECT c.record_id, c.system_id, c.item_id, c.attempt, c.job_id, c.status, c.final_entry_digest,
       CASE WHEN NOT EXISTS (SELECT 1 FROM registered_systems WHERE len(buyer_fingerprints) > 0) THEN NULL
            WHEN EXISTS (SELECT 1 FROM evidence_links l
                         JOIN proof_uses u ON u.record_id = l.record_id AND u.evidence_index = l.evidence_index
                         WHERE l.record_id = c.record_id AND u.binding = 'BOUND') THEN 'BOUND'
            ELSE 'NOT_BOUND' END AS binding
FROM chain_checks c;

CREATE TEMP TABLE evidence_keys AS
WITH proofs AS (
  SELECT *, status = 'VERIFIED' AND binding IS DISTINCT FROM 'NOT_BOUND' AS claims FROM proof_uses
), timelines AS (
  SELECT *, status = 'ANCHORED' AND binding IS DISTINCT FROM 'NOT_BOUND' AS claims FROM timeline_uses
)
SELECT 'proof' AS evidence_kind, record_id, evidence_index, system_id, item_id, attempt, 'proof_id' AS kind, proof_id AS value, FALSE AS keyed, claims FROM proofs
UNION ALL SELECT 'proof', record_id, evidence_index, system_id, item_id, attempt, 'chain_hash', declared_chain_hash, TRUE, claims FROM proofs
-- The final digest is 64 hex digits: the last space of the value separates it from the job id.
UNION ALL SELECT 'timeline', record_id, NULL, system_id, item_id, attempt, 'job_final_digest', job_id || ' ' || final_entry_digest, TRUE, claims FROM timelines;

-- Whose claims compete: every claimant when the study registers no systems, else one system's.
CREATE TEMP TABLE competing_claims AS
SELECT a.kind, a.value, a.record_id, a.evidence_kind, a.evidence_index
FROM evidence_keys a
JOIN evidence_keys b ON b.kind = a.kind AND b.value = a.value AND b.record_id <> a.record_id
WHERE a.keyed AND a.claims AND b.claims AND a.value IS NOT NULL
  AND (NOT EXISTS (SELECT 1 FROM registered_systems WHERE len(buyer_fingerprints) > 0) OR a.system_id = b.system_id)
GROUP BY ALL;

-- Every value used by more than one record, with who uses it and who claims it.
CREATE TABLE evidence_reuse AS
WITH shared AS (
  -- The values of more than one record, found with two integers a value before any list is built
  -- (a list per value, for every value, held ≈ 680 MiB at 100,000 records: docs/performance.md).
  SELECT kind, value FROM evidence_keys WHERE value IS NOT NULL GROUP BY kind, value HAVING min(record_id) <> max(record_id)
), keyed AS (
  SELECT *, system_id || '/' || item_id || '/' || CAST(attempt AS VARCHAR) AS record
  FROM evidence_keys SEMI JOIN shared USING (kind, value)
)
SELECT kind, value,
       list_sort(list_distinct(list(record))) AS records,
       list_sort(list_distinct(list(system_id))) AS systems,
       coalesce(list_sort(list_distinct(list(record) FILTER (WHERE claims))), []::VARCHAR[]) AS claimed_by,
       (kind, value) IN (SELECT kind, value FROM competing_claims) AS cancels
FROM keyed
GROUP BY kind, value
HAVING count(DISTINCT record_id) > 1
ORDER BY kind, value;

-- One row per evidence item (proof) and per receipt timeline of every record.
CREATE TABLE evidence_ownership AS
WITH reused AS (
  SELECT evidence_kind, record_id, evidence_index, list_sort(list_distinct(list(kind))) AS reused_by
  FROM competing_claims
  GROUP BY ALL
), uses AS (
  SELECT 'proof' AS evidence_kind, record_id, evidence_index, system_id, item_id, attempt, proof_id AS evidence_id, status, buyer_fingerprint, binding,
         seller, seller_source, seller_pinned, seller_code FROM proof_uses
  UNION ALL
  SELECT 'timeline', record_id, NULL, system_id, item_id, attempt, job_id, status, NULL, binding, NULL, NULL, NULL, NULL FROM timeline_uses
)
SELECT u.record_id, u.evidence_kind, u.evidence_index, u.system_id, u.item_id, u.attempt, u.evidence_id, u.status,
       u.buyer_fingerprint, u.binding,
       coalesce(r.reused_by, []::VARCHAR[]) AS reused_by,
       u.binding IS DISTINCT FROM 'NOT_BOUND' AND r.reused_by IS NULL AS owned,
       u.seller, u.seller_source, u.seller_pinned,
       list_concat(CASE WHEN u.binding = 'NOT_BOUND' THEN ['EVIDENCE_NOT_BOUND'] ELSE []::VARCHAR[] END,
                   CASE WHEN r.reused_by IS NOT NULL THEN ['EVIDENCE_REUSED'] ELSE []::VARCHAR[] END,
                   CASE WHEN u.seller_code IS NOT NULL THEN [u.seller_code] ELSE []::VARCHAR[] END) AS reason_codes
FROM uses u
LEFT JOIN reused r ON r.evidence_kind = u.evidence_kind AND r.record_id = u.record_id AND r.evidence_index IS NOT DISTINCT FROM u.evidence_index
ORDER BY u.record_id, u.evidence_kind, u.evidence_index;

DROP TABLE competing_claims;
DROP TABLE evidence_keys;
DROP TABLE timeline_uses;
DROP TABLE proof_uses;
