// One unit of verification work, as text in and plain result out, so the same code runs in a
// worker thread (pipeline stage), in-process (`prereg verify FILE`) and in the benchmark.
// Texts are parsed with the canonical parser: exact number lexemes, duplicate keys refused.
import { CanonicalText, JsonParseError, parseJson, type JsonValue } from '../../formats/canonical-json.ts';
import { indexCommitments, verifyReceipt, verifyTimeline, type CommitmentIndex, type CommitmentLine, type ReceiptVerification, type TimelineVerification } from '../aer1/index.ts';
import { unparsedProofVerification, verifyEvidenceItem, type ProofVerification, type StudyWindow } from '../arkforge/index.ts';
import { buildTrustMaterialFrom, type TrustMaterial, type TrustMaterialInputs } from '../trust/index.ts';

/** Texts are canonical JSON (canonicalJson's output): request and response are hashed as given. */
export type VerifyTask =
  | {
      kind: 'evidence';
      key: string;
      proof: string;
      request: string | null;
      response: string | null;
      disclosure: string | null;
      /** The evidence item's transparency_log_entry (schemas/tlog-entry.schema.json); null when absent. */
      transparency_log_entry: string | null;
    }
  /** An AER-1 timeline: a bare array or prereg's envelope (SPEC §5.2). */
  | { kind: 'chain'; key: string; chain: string }
  /** A single AER-1 receipt (an object with receipt_schema_version). */
  | { kind: 'receipt'; key: string; receipt: string };

export type VerifyOutcome =
  | { kind: 'evidence'; key: string; result: ProofVerification }
  | { kind: 'chain'; key: string; result: TimelineVerification }
  | { kind: 'receipt'; key: string; result: ReceiptVerification };

export interface VerifyContextInputs {
  trust: TrustMaterialInputs;
  window: StudyWindow;
  /** Every line of the commitments file, well-formed or not (plain data for the workers). */
  commitments: CommitmentLine[];
}

export interface VerifyContext {
  trust: TrustMaterial;
  window: StudyWindow;
  commitments: CommitmentIndex;
}

export function buildVerifyContext(inputs: VerifyContextInputs): VerifyContext {
  return { trust: buildTrustMaterialFrom(inputs.trust), window: inputs.window, commitments: indexCommitments(inputs.commitments) };
}


function parse(text: string): JsonValue {
  return parseJson(text);
}

/** The parsed document (number lexemes kept: seq 2.0 is not 2.5), or null when it does not parse. */
function parseOrNull(text: string): JsonValue | null {
  try {
    return parse(text);
  } catch (err) {
    if (!(err instanceof JsonParseError)) throw err;
    return null; // the verifiers report null as malformed
  }
}

export async function runVerifyTask(task: VerifyTask, ctx: VerifyContext): Promise<VerifyOutcome> {
  if (task.kind === 'chain') {
    return { kind: 'chain', key: task.key, result: verifyTimeline(parseOrNull(task.chain), ctx.commitments, ctx.window.closes_at) };
  }
  if (task.kind === 'receipt') return { kind: 'receipt', key: task.key, result: verifyReceipt(parseOrNull(task.receipt)) };
  try {
    // Bodies arrive as canonical JSON text (ingest stored them with canonicalJson; file mode
    // canonicalises them too): they are hashed as they are, without a second parse. The
    // disclosure's values are hashed one by one, so it is parsed (lexemes kept); so is the
    // transparency-log entry (the verifier reads its integers and strings).
    const item = {
      proof: parse(task.proof),
      ...(task.request !== null ? { request: new CanonicalText(task.request) } : {}),
      ...(task.response !== null ? { response: new CanonicalText(task.response) } : {}),
      ...(task.disclosure !== null ? { disclosure: parse(task.disclosure) } : {}),
      ...(task.transparency_log_entry !== null ? { transparency_log_entry: parse(task.transparency_log_entry) } : {}),
    };
    return { kind: 'evidence', key: task.key, result: await verifyEvidenceItem(item, ctx.trust, ctx.window) };
  } catch (err) {
    if (!(err instanceof JsonParseError)) throw err;
    return { kind: 'evidence', key: task.key, result: unparsedProofVerification(err.code, `line ${err.line} column ${err.column}: ${err.message}`) };
  }
}
