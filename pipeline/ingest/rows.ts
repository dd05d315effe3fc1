// Ingest results as rows of records, evidence, receipts, rejects and submission_files, keyed by
// column name and typed by the tables' declarations (pipeline/store/table-declarations.ts).
import { sha256Hex } from '../formats/hash.ts';
import type { TableRow } from '../store/table-declarations.ts';
import type { FileSummary } from './scan.ts';
import type { AcceptedRecord, IngestedEvidence, LineLocation } from './submission.ts';

export function recordRow(recordId: number, r: AcceptedRecord): TableRow<'records'> {
  return {
    record_id: recordId,
    system_id: r.system_id,
    item_id: r.item_id,
    attempt: r.attempt,
    file: r.file,
    line_no: r.line_no,
    byte_offset: r.byte_offset,
    line_sha256: r.line_sha256,
    answer_text: r.answer_text,
    refused: r.refused,
    truncated: r.truncated,
    evidence_count: r.evidence.length,
    has_receipts: r.receipts_json !== null,
    config_json: r.config_json,
  };
}

export function evidenceRow(recordId: number, e: IngestedEvidence): TableRow<'evidence'> {
  return {
    record_id: recordId,
    evidence_index: e.evidence_index,
    proof_json: e.proof_json,
    request_json: e.request_json,
    response_json: e.response_json,
    disclosure_json: e.disclosure_json,
    tlog_entry_json: e.tlog_entry_json,
  };
}

export function receiptRow(recordId: number, receiptsJson: string): TableRow<'receipts'> {
  return { record_id: recordId, chain_json: receiptsJson, chain_sha256: sha256Hex(receiptsJson) };
}

/** A line that does not count, and never disappears: the submission's and the commitments file's. */
export interface RejectedLine extends LineLocation {
  reason_code: string;
  column_no: number | null;
  detail: string;
}

export function rejectRow(r: RejectedLine): TableRow<'rejects'> {
  return {
    file: r.file,
    line_no: r.line_no,
    byte_offset: r.byte_offset,
    line_sha256: r.line_sha256,
    reason_code: r.reason_code,
    column_no: r.column_no,
    detail: r.detail,
  };
}

export function submissionFileRow(s: FileSummary): TableRow<'submission_files'> {
  return { file: s.file, sha256: s.sha256, bytes: s.bytes, lines_read: s.lines_read, accepted: s.accepted, rejected: s.rejected };
}
