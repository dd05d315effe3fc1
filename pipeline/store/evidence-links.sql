-- Which evidence responses are the output commitment (SHA-256 of the decoded canonical_bytes,
-- computed by verify, never read from the entry) of which timeline entries of the same record
-- (SPEC §6.2). Read by evidence-ownership.sql and served-passages.sql.
CREATE TABLE evidence_links AS
SELECT p.record_id, p.evidence_index, e.seq, c.status AS chain_status
FROM proof_checks p
JOIN chain_entries e ON e.record_id = p.record_id
  AND e.output_commitment = p.response_hash
JOIN chain_checks c ON c.record_id = p.record_id
ORDER BY p.record_id, p.evidence_index, e.seq;
