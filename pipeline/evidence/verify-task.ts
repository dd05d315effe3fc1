// One unit of verification work, as text in and plain result out, so the same code runs in a
// worker thread (pipeline stage), in-process (`prereg verify FILE`) and in the benchmark.
// Texts are parsed with the canonical parser: exact number lexemes, duplicate keys refused.
import { CanonicalText, JsonParseError, parseJson, toPlain, type JsonValue } from '../formats/canonical-json.ts';
import { indexCommitments, verifyChain, type ChainCommitment, type ChainVerification, type CommitmentIndex } from './aer1-chain.ts';
import { unparsedProofVerification, verifyEvidenceItem, type ProofVerification, type StudyWindow } from './arkforge-proof.ts';
import { buildTrustMaterialFrom, type TrustMaterial, type TrustMaterialInputs } from './trust-material.ts';

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
  | { kind: 'chain'; key: string; chain: string };

export type VerifyOutcome =
  | { kind: 'evidence'; key: string; result: ProofVerification }
  | { kind: 'chain'; key: string; result: ChainVerification };

export interface VerifyContextInputs {
  trust: TrustMaterialInputs;
  window: StudyWindow;
  commitments: ChainCommitment[];
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

export async function runVerifyTask(task: VerifyTask, ctx: VerifyContext): Promise<VerifyOutcome> {
  if (task.kind === 'chain') {
    let doc: unknown;
    try {
      doc = toPlain(parse(task.chain));
    } catch (err) {
      if (!(err instanceof JsonParseError)) throw err;
      doc = null; // verifyChain reports a non-object document as CHAIN_MALFORMED
    }
    return { kind: 'chain', key: task.key, result: verifyChain(doc, ctx.commitments, ctx.window.closes_at) };
  }
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
