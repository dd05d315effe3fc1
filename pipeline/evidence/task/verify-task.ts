// One unit of verification work, as text in and plain result out, so the same code runs in a
// worker thread (pipeline stage), in-process (`prereg verify FILE`) and in the benchmark.
// Texts are parsed with the canonical parser: exact number lexemes, duplicate keys refused.
import {
  canonicalJson,
  CanonicalText,
  DEFAULT_MAX_DEPTH,
  isRecord,
  JsonParseError,
  parseJson,
  type JsonValue,
} from '../../formats/canonical-json.ts';
import { parsePlainIfSafe } from '../../formats/json-fast-path.ts';
import {
  indexCommitments,
  verifyReceipt,
  verifyTimeline,
  type AgentKeyring,
  type CommitmentIndex,
  type CommitmentLine,
  type ReceiptVerification,
  type TimelineVerification,
} from '../aer1/index.ts';
import {
  unparsedProofVerification,
  verifyEvidenceItem,
  type EvidenceItem,
  type ProofVerification,
  type StudyWindow,
} from '../arkforge/index.ts';
import { agentPublicKey } from '../intake/ed25519.ts';
import { checkOnThisThread, type SignatureCheck } from '../signature-check.ts';
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
  /**
   * An AER-1 timeline: a bare array or prereg's envelope (SPEC §5.2); `owner`, the system whose
   * record submitted it (absent outside a study): only a commitment binding it can conflict (SPEC §12.3).
   */
  | { kind: 'chain'; key: string; chain: string; owner?: string }
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
  /** The registered systems' agent keys (study.json systems[].agent_keys, `ed25519:<base64url>`): who signed a commitment. */
  agent_keys?: ReadonlyArray<{ system_id: string; public_key: string }>;
}

export interface VerifyContext {
  trust: TrustMaterial;
  window: StudyWindow;
  commitments: CommitmentIndex;
  /** Where proofs' signatures are checked: in line (worker threads), or on libuv's pool (`verify DIR` on one thread). */
  signatures: SignatureCheck;
}

/** The registered agent keys, decoded: whose each key is (SPEC §12.3). */
export function agentKeyring(agentKeys: VerifyContextInputs['agent_keys']): AgentKeyring {
  // study.json's agent keys were checked when it was read (agentKeyProblems): one that does not decode is skipped here, never trusted.
  return (agentKeys ?? []).flatMap((k) => {
    const key = agentPublicKey(k.public_key);
    return key === undefined ? [] : [{ system_id: k.system_id, key }];
  });
}

export function buildVerifyContext(inputs: VerifyContextInputs, signatures: SignatureCheck = checkOnThisThread): VerifyContext {
  return {
    trust: buildTrustMaterialFrom(inputs.trust),
    window: inputs.window,
    commitments: indexCommitments(inputs.commitments, agentKeyring(inputs.agent_keys)),
    signatures,
  };
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

/** A document parsed already (`prereg verify FILE` parses each file once), as the task of its kind would carry it as text. */
export type ParsedDocument =
  /** A body given as CanonicalText is hashed as that text (a task's, read from the store); a parsed one as its canonical JSON. */
  | {
      kind: 'evidence';
      key: string;
      proof: JsonValue;
      /** The proof and bodies are plain JSON (JSON.parse, numbers as doubles: formats/json-fast-path.ts), not parsed JsonValue. */
      plain?: true;
      request?: JsonValue | CanonicalText;
      response?: JsonValue | CanonicalText;
      disclosure?: JsonValue;
      transparency_log_entry?: JsonValue;
    }
  /** null: a text that did not parse (the verifiers report it as malformed). */
  | { kind: 'chain'; key: string; chain: JsonValue | null; owner?: string }
  | { kind: 'receipt'; key: string; receipt: JsonValue | null };

/**
 * Verifies a parsed document exactly as runVerifyTask verifies its canonical text: the bodies are
 * hashed as their canonical JSON, every other value is read as parsed (lexemes kept).
 */
export async function verifyParsedDocument(doc: ParsedDocument, ctx: VerifyContext): Promise<VerifyOutcome> {
  if (doc.kind === 'chain')
    return { kind: 'chain', key: doc.key, result: verifyTimeline(doc.chain, ctx.commitments, ctx.window, doc.owner ?? null) };
  if (doc.kind === 'receipt') return { kind: 'receipt', key: doc.key, result: verifyReceipt(doc.receipt) };
  const body = (v: JsonValue | CanonicalText) => (v instanceof CanonicalText ? v : new CanonicalText(canonicalJson(v)));
  const item: EvidenceItem = { proof: doc.proof };
  if (doc.plain) item.plain = true;
  if (doc.request !== undefined) item.request = body(doc.request);
  if (doc.response !== undefined) item.response = body(doc.response);
  if (doc.disclosure !== undefined) item.disclosure = doc.disclosure;
  if (doc.transparency_log_entry !== undefined) item.transparency_log_entry = doc.transparency_log_entry;
  return { kind: 'evidence', key: doc.key, result: await verifyEvidenceItem(item, ctx.trust, ctx.window, ctx.signatures) };
}

export async function runVerifyTask(task: VerifyTask, ctx: VerifyContext): Promise<VerifyOutcome> {
  if (task.kind === 'chain')
    return verifyParsedDocument(
      { kind: 'chain', key: task.key, chain: parseOrNull(task.chain), ...(task.owner !== undefined ? { owner: task.owner } : {}) },
      ctx,
    );
  if (task.kind === 'receipt') return verifyParsedDocument({ kind: 'receipt', key: task.key, receipt: parseOrNull(task.receipt) }, ctx);
  try {
    // Bodies arrive as canonical JSON text (ingest stored them with canonicalJson): they are hashed
    // as they are, without a second parse. The disclosure's values are hashed one by one, so it is
    // parsed (lexemes kept); so is the transparency-log entry (the verifier reads its integers and strings).
    // The proof is read by JSON.parse when its text shows the canonical parser reads the same
    // values (formats/json-fast-path.ts): native code, and the schema reads it without a copy.
    const plain = parsePlainIfSafe(task.proof, DEFAULT_MAX_DEPTH) as JsonValue | undefined;
    const fast = plain !== undefined && isRecord(plain);
    return await verifyParsedDocument(
      {
        kind: 'evidence',
        key: task.key,
        proof: fast ? plain : parse(task.proof),
        ...(fast ? { plain: true as const } : {}),
        ...(task.request !== null ? { request: new CanonicalText(task.request) } : {}),
        ...(task.response !== null ? { response: new CanonicalText(task.response) } : {}),
        ...(task.disclosure !== null ? { disclosure: parse(task.disclosure) } : {}),
        ...(task.transparency_log_entry !== null ? { transparency_log_entry: parse(task.transparency_log_entry) } : {}),
      },
      ctx,
    );
  } catch (err) {
    if (!(err instanceof JsonParseError)) throw err;
    return {
      kind: 'evidence',
      key: task.key,
      result: unparsedProofVerification(err.code, `line ${err.line} column ${err.column}: ${err.message}`),
    };
  }
}
