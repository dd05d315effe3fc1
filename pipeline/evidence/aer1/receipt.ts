// A single AER-1 receipt (draft-zambo-aer1-09 §3–5): the draft's core check. Conformant means
// internally consistent — the output hash is the hash of the bytes, every member has its shape —
// and nothing more: a receipt is its producer's own statement, never evidence (SPEC §5.2).
import { isRecord, member } from '../../formats/canonical-json.ts';
import { sha256Hex } from '../../formats/hash.ts';
import { parseRfc3339 } from '../../formats/rfc3339.ts';
import { checkCatalogue, codeOfCheck, worstStatus, type CodeOf } from '../check-catalogue.ts';
import { describe, isNonEmptyString, isProvenanceClass, strictBase64 } from './fields.ts';

const LOWERCASE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OUTPUT_HASH = /^sha256:[0-9a-f]{64}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The shape checks: an object, then one per member. */
const RECEIPT_SHAPE_CHECKS = [
  'structure',
  'id',
  'receipt_schema_version',
  'created_at',
  'tool',
  'provenance_class',
  'canonical_bytes',
  'output_hash',
  'verification_status',
] as const;
/** The checks in the order they run: the shape, then the output hash against the bytes. */
export const RECEIPT_CHECKS = [...RECEIPT_SHAPE_CHECKS, 'output_commitment'] as const;
export type ReceiptCheck = (typeof RECEIPT_CHECKS)[number];

/** Every code a receipt reports, with its checks: any one makes it NONCONFORMANT. A failed shape check of any member is RECEIPT_MALFORMED. */
export const RECEIPT_CATALOGUE = checkCatalogue(RECEIPT_CHECKS, ['NONCONFORMANT'], {
  RECEIPT_MALFORMED: { check: RECEIPT_SHAPE_CHECKS, status: 'NONCONFORMANT' },
  RECEIPT_OUTPUT_HASH_MISMATCH: { check: 'output_commitment', status: 'NONCONFORMANT' },
});
/** The code each failed check reports. */
export const RECEIPT_CHECK_CODES = codeOfCheck(RECEIPT_CATALOGUE);
export type ReceiptReasonCode = CodeOf<typeof RECEIPT_CATALOGUE>;
export type ReceiptStatus = 'CONFORMANT' | (typeof RECEIPT_CATALOGUE.statuses)[number];

export interface ReceiptVerification {
  status: ReceiptStatus;
  reason_codes: ReceiptReasonCode[];
  checks: Record<ReceiptCheck, 'pass' | 'fail' | 'skipped'>;
  /** The receipt's id when it is a string, else null. */
  id: string | null;
  /** SHA-256 (hex) of the decoded canonical_bytes; null when they do not decode. */
  output_commitment: string | null;
  /** The declared class when it is one of the three: reported, never trusted. */
  provenance_class: string | null;
  problems: string[];
}

/** The core check: every member, and output_hash = "sha256:" + SHA-256 of the decoded bytes. */
export function verifyReceipt(doc: unknown): ReceiptVerification {
  const checks = Object.fromEntries(RECEIPT_CHECKS.map((c) => [c, 'skipped'])) as ReceiptVerification['checks'];
  const problems: string[] = [];
  const codes = new Set<ReceiptReasonCode>();
  const result = (fields: Partial<ReceiptVerification>): ReceiptVerification => ({
    status: worstStatus(RECEIPT_CATALOGUE, [...codes], 'CONFORMANT'),
    reason_codes: [...codes].sort(),
    checks,
    id: null,
    output_commitment: null,
    provenance_class: null,
    problems,
    ...fields,
  });
  if (!isRecord(doc)) {
    checks.structure = 'fail';
    codes.add(RECEIPT_CHECK_CODES.structure);
    problems.push(`a receipt must be a JSON object, got ${describe(doc)}`);
    return result({});
  }
  checks.structure = 'pass';
  const record = (check: ReceiptCheck, ok: boolean, shape: string) => {
    checks[check] = ok ? 'pass' : 'fail';
    if (ok) return;
    const code = RECEIPT_CHECK_CODES[check];
    codes.add(code);
    problems.push(code === 'RECEIPT_MALFORMED' ? `${check} must be ${shape}, got ${describe(member(doc, check))}` : shape);
  };

  const id = member(doc, 'id');
  record('id', typeof id === 'string' && LOWERCASE_UUID.test(id), 'a lowercase UUID');
  record('receipt_schema_version', isNonEmptyString(member(doc, 'receipt_schema_version')), 'a non-empty string');
  const created = member(doc, 'created_at');
  record('created_at', typeof created === 'string' && parseRfc3339(created) !== null, 'an RFC 3339 date-time with a real date');
  const tool = member(doc, 'tool');
  record(
    'tool',
    isRecord(tool) && ['name', 'version', 'scope'].every((k) => isNonEmptyString(member(tool, k))),
    'an object {name, version, scope} of non-empty strings',
  );
  const pc = member(doc, 'provenance_class');
  record('provenance_class', isProvenanceClass(pc), '"EXECUTED BY <NAME>", "OBSERVED VIA GATEWAY" or "LOGGED BY AGENT"');
  const bytes = strictBase64(member(doc, 'canonical_bytes'));
  record('canonical_bytes', bytes !== null && isUtf8(bytes), 'strict, padded base64 of UTF-8 text');
  const declared = member(doc, 'output_hash');
  const shaped = typeof declared === 'string' && OUTPUT_HASH.test(declared);
  record('output_hash', shaped, '"sha256:" and 64 lowercase hex digits');
  record('verification_status', member(doc, 'verification_status') === 'verified', '"verified"');

  const computed = bytes === null ? null : sha256Hex(bytes);
  if (computed !== null && shaped && checks.canonical_bytes === 'pass') {
    record(
      'output_commitment',
      declared === `sha256:${computed}`,
      `output_hash ${String(declared)} is not the SHA-256 of the decoded canonical_bytes (sha256:${computed})`,
    );
  }
  return result({
    id: typeof id === 'string' ? id : null,
    output_commitment: computed,
    provenance_class: isProvenanceClass(pc) ? pc : null,
  });
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}
