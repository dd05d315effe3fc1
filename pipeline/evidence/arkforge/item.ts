// Step 1 of SPEC §6.1 for one evidence item: the published schema (schemas/proof.schema.json, one
// branch per algorithm family), then what a schema cannot say — a real instant, payment and
// certification_fee equal when both are given, bodies that are JSON, openings that are well-formed,
// batch numbers written as integers. Pure; returns the problems or what the checks read.
import {
  CanonicalText,
  JsonNumber,
  canonicalJson,
  isRecord,
  member,
  parseJson,
  toPlain,
  type JsonValue,
} from '../../formats/canonical-json.ts';
import { isHex64, sha256Hex } from '../../formats/hash.ts';
import { describeErrors, validator } from '../../formats/schemas.ts';
import { byCodePoint } from './versions/commitments.ts';
import { proofVersionModule, type ArkForgeProof, type SourcedOpening } from './versions/index.ts';
import { chainInputs, type ChainFields } from './versions/proof.ts';
import { utcMillis } from '../../formats/utc-instant.ts';

export interface EvidenceItem {
  proof: unknown;
  /** The proof is plain JSON already (JSON.parse of a text formats/json-fast-path.ts let through): the schema reads it as it is. */
  plain?: true;
  request?: unknown;
  response?: unknown;
  /** The owner's openings of a 3.x proof's commitments: {"disclosed": {field: {nonce, value}}}. */
  disclosure?: unknown;
  /**
   * The transparency-log entry of the witnessed hash as retrieved at collection time
   * (schemas/tlog-entry.schema.json). Not read here: the tlog check judges it (tlog/rekor-entry.ts), and a bad
   * entry is PROOF_TLOG_*, never PROOF_MALFORMED. Absent or null: none.
   */
  transparency_log_entry?: unknown;
}

export interface ReadProof {
  /** The proof as the schema accepted it (plain JS). */
  proof: ArkForgeProof;
  /** The proof as given (number lexemes kept when parsed with parseJson). */
  raw: Record<string, unknown>;
  timestampMs: number;
  /** SHA-256 hex of the canonical JSON of each body given. */
  requestHash?: string;
  responseHash?: string;
  /** The proof's `disclosed`, then the item's `disclosure.disclosed`, each sorted by field. */
  openings: SourcedOpening[];
  /** Below 3.0: the chain inputs, served in full or as the public view (any other gap is a problem). */
  chainInputs?: { fields: ChainFields } | { redacted: true };
}

const validateProof = validator('proof'); // compiled once, at module load

export function readItem(item: EvidenceItem): ReadProof | { problems: string[] } {
  const raw = item.proof;
  if (!isRecord(raw)) return { problems: [`the proof must be a JSON object, got ${describe(raw)}`] };
  // ajv sees plain JS: JsonNumber lexemes become numbers (the schema only asks "is a number").
  const plain = item.plain ? raw : toPlain(raw as JsonValue);
  if (!validateProof(plain))
    return { problems: describeErrors(validateProof.errors).map((p) => (p.startsWith('/ ') ? `proof${p.slice(1)}` : `proof${p}`)) };
  const proof = plain as ArkForgeProof;
  const problems: string[] = [];
  const timestampMs = utcMillis(proof.timestamp);
  if (timestampMs === undefined) problems.push(`proof/timestamp ${JSON.stringify(proof.timestamp)} is not a real instant`);
  // Below 3.0 the chain inputs are values: served as a full proof or as the issuer's public view, nothing in between.
  const version = proofVersionModule(proof.spec_version);
  const inputs = version !== undefined && version.algorithm !== 'commitments' ? chainInputs(proof) : undefined;
  if (inputs !== undefined && 'malformed' in inputs) problems.push(`proof: ${inputs.malformed}`);
  const payment = member(raw, 'payment');
  const fee = member(raw, 'certification_fee');
  // Compared on the parsed values (lexemes kept): 1 and 1.0 differ, as in Python's canonical form.
  if (payment !== undefined && fee !== undefined && canonicalJson(payment) !== canonicalJson(fee)) {
    problems.push('proof/payment and proof/certification_fee are both present and differ (canonical JSON)');
  }
  // Python reads 1.0 as a float, never an index: batch numbers must be written as integers.
  const anchor = member(raw, 'batch_anchor');
  for (const key of ['leaf_index', 'tree_size']) {
    const n = member(anchor, key);
    if (n instanceof JsonNumber && /[.eE]/.test(n.lexeme))
      problems.push(`proof/batch_anchor/${key} ${n.lexeme} is not written as an integer`);
  }
  const requestHash = bodyHash(item.request, 'request', problems);
  const responseHash = bodyHash(item.response, 'response', problems);
  const openings = [
    ...readOpenings(member(raw, 'disclosed'), 'proof', 'proof/disclosed', problems),
    ...readOpenings(member(disclosureValue(item.disclosure, problems), 'disclosed'), 'disclosure', 'disclosure/disclosed', problems),
  ];
  if (problems.length > 0 || timestampMs === undefined) return { problems };
  const read: ReadProof = { proof, raw, timestampMs, openings };
  if (requestHash !== undefined) read.requestHash = requestHash;
  if (responseHash !== undefined) read.responseHash = responseHash;
  if (inputs !== undefined && !('malformed' in inputs)) read.chainInputs = inputs;
  return read;
}

/** SHA-256 hex of the body's canonical JSON; undefined when no body is given (absent or null). */
function bodyHash(body: unknown, name: string, problems: string[]): string | undefined {
  if (body === undefined || body === null || (body instanceof CanonicalText && body.text === 'null')) return undefined;
  try {
    return sha256Hex(canonicalJson(body));
  } catch (e) {
    problems.push(`the ${name} body is not a JSON value: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
}

/** The evidence item's disclosure (absent or null: none), an object. */
function disclosureValue(disclosure: unknown, problems: string[]): unknown {
  let value = disclosure;
  if (value instanceof CanonicalText) {
    try {
      value = parseJson(value.text);
    } catch (e) {
      problems.push(`disclosure is not JSON: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  }
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) {
    problems.push(`disclosure must be an object {"disclosed": {field: {nonce, value}}}, got ${describe(value)}`);
    return undefined;
  }
  return value;
}

/** {field: {nonce: 64 lowercase hex, value}} → openings sorted by field; problems for anything else. */
function readOpenings(disclosed: unknown, source: SourcedOpening['source'], where: string, problems: string[]): SourcedOpening[] {
  if (disclosed === undefined || disclosed === null) return [];
  if (!isRecord(disclosed)) {
    problems.push(`${where} must be an object of openings {field: {nonce, value}}, got ${describe(disclosed)}`);
    return [];
  }
  const out: SourcedOpening[] = [];
  for (const field of Object.keys(disclosed).sort(byCodePoint)) {
    const opening = disclosed[field];
    const nonce = member(opening, 'nonce');
    const value = member(opening, 'value');
    if (!isRecord(opening) || !isHex64(nonce) || value === undefined) {
      problems.push(`${where}/${field} must be {"nonce": 64 lowercase hex digits (32 bytes), "value": any JSON value}`);
      continue;
    }
    try {
      canonicalJson(value);
    } catch (e) {
      problems.push(`${where}/${field}/value is not a JSON value: ${e instanceof Error ? e.message : String(e)}`);
      continue;
    }
    out.push({ field, nonce, value, source });
  }
  return out;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return value instanceof JsonNumber ? 'a number' : typeof value;
}
