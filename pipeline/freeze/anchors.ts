// Anchors: RFC 3161 tokens over freeze_digest, stored in preregistration/anchors/ as
// <witness>.tsr with <witness>.json beside it (who, where, when and how it was retrieved).
import { join } from 'node:path';
import { verifyTimestampToken, type TsaTrust } from '../evidence/timestamp/index.ts';
import { readJsonFile } from '../io/json-files.ts';
import { writeFileAtomic } from '../io/atomic.ts';
import { PreregError, type ReasonCode } from '../reasons.ts';
import { listFiles } from '../study/freeze-record.ts';
import type { ChainLink, FreezeChain } from '../study/freeze-chain.ts';
import { readRegularFile } from '../io/regular-file.ts';
import { sha256Hex } from '../formats/hash.ts';

export interface AnchorMetadata {
  format: 'prereg.anchor/1';
  witness: string;
  url: string | null;
  retrieved_via: 'http' | 'import';
  retrieved_at: string;
  freeze_digest: string;
  tsr_sha256: string;
}

/**
 * The roots an anchor is judged against (SPEC §12.1): the study's own (its trust policy), and the
 * auditor's when the auditor supplied some (`--tsa-root`). With auditor roots, a token that chains
 * only to a study root is still reported, as trusted by the study alone, and is not counted.
 */
export interface AnchorRoots {
  study: TsaTrust;
  auditor: TsaTrust | null;
}

export interface AnchorVerification {
  witness: string;
  file: string;
  ok: boolean;
  reason_codes: ReasonCode[];
  gen_time: string | null;
  signer: string | null;
  signer_cert_sha256: string | null;
  /** SHA-256 of the DER of the root the token chained to (null when it chained to none). */
  root_sha256: string | null;
  /** Whose root it chained to: the auditor's (`--tsa-root`), only the study's own, or none. */
  trusted_by: 'auditor' | 'study' | null;
  url: string | null;
  retrieved_via: string | null;
  retrieved_at: string | null;
  /** How <witness>.json disagrees with its token (empty when it agrees). */
  metadata_problems: string[];
}

/** How far before genTime a retrieval time may be (clock skew between us and the TSA). */
const RETRIEVAL_SKEW_MS = 5 * 60_000;

/**
 * What the metadata says that its token contradicts: a token other than the one it names
 * (tsr_sha256), another digest, another witness than the file's name, a retrieval before the
 * token existed. The url and the retrieval time are otherwise the operator's word: emit records
 * the metadata's SHA-256 with the token's, so any later edit is an audit finding.
 */
function metadataProblems(
  meta: Partial<AnchorMetadata>,
  token: { witness: string; tsrSha256: string; freezeDigestHex: string; imprintMatches: boolean; genTime: string | undefined },
): string[] {
  const problems: string[] = [];
  if (meta.format !== 'prereg.anchor/1') problems.push(`format is ${JSON.stringify(meta.format)}, not "prereg.anchor/1"`);
  if (meta.witness !== token.witness) problems.push(`witness is ${JSON.stringify(meta.witness)}; the token file is ${token.witness}.tsr`);
  if (meta.tsr_sha256 !== token.tsrSha256)
    problems.push(`tsr_sha256 is ${JSON.stringify(meta.tsr_sha256)}; the token hashes to ${token.tsrSha256}`);
  // Against the freeze only when the token timestamps it: an edited freeze.json is the token's finding (TSA_IMPRINT_MISMATCH).
  if (token.imprintMatches && meta.freeze_digest !== token.freezeDigestHex)
    problems.push(`freeze_digest is ${JSON.stringify(meta.freeze_digest)}; the freeze's is ${token.freezeDigestHex}`);
  if (meta.retrieved_via !== 'http' && meta.retrieved_via !== 'import')
    problems.push(`retrieved_via is ${JSON.stringify(meta.retrieved_via)}, not "http" or "import"`);
  if (meta.url !== null && typeof meta.url !== 'string') problems.push('url is neither a string nor null');
  const retrieved = typeof meta.retrieved_at === 'string' ? Date.parse(meta.retrieved_at) : NaN;
  if (Number.isNaN(retrieved)) problems.push(`retrieved_at ${JSON.stringify(meta.retrieved_at)} is not a time`);
  else if (token.genTime !== undefined && retrieved < Date.parse(token.genTime) - RETRIEVAL_SKEW_MS) {
    problems.push(`retrieved_at ${meta.retrieved_at} is before the token's genTime ${token.genTime}`);
  }
  return problems;
}

/** Every file of the anchors: each token and its metadata, as emit records them (file, sha256). */
export function listAnchorFiles(dir: string): string[] {
  return [...listFiles(dir, '.tsr'), ...listFiles(dir, '.json')].sort();
}

export function writeAnchor(dir: string, tsr: Uint8Array, meta: AnchorMetadata): void {
  // The token first: metadata without its token would be a claim without a witness.
  writeFileAtomic(join(dir, `${meta.witness}.tsr`), tsr);
  writeFileAtomic(join(dir, `${meta.witness}.json`), `${JSON.stringify(meta, null, 2)}\n`);
}

export function listAnchorTokens(dir: string): string[] {
  return listFiles(dir, '.tsr');
}

/** The imprint of an anchor is SHA-256 (or SHA-384/512, the token says which) over the 32 bytes of freeze_digest (SPEC §4.4, §12.7). */
export async function verifyAnchor(
  dir: string,
  file: string,
  freezeDigestHex: string,
  roots: AnchorRoots,
  opensAt: string,
  /** The study-relative folder the findings name (an earlier freeze's anchors are kept under preregistration/amendments/<n>/anchors). */
  label = 'preregistration/anchors',
): Promise<AnchorVerification> {
  const witness = file.replace(/\.tsr$/, '');
  let meta: Partial<AnchorMetadata> = {};
  let metaProblems: string[];
  const tsr = readRegularFile(join(dir, file));
  const digest = Buffer.from(freezeDigestHex, 'hex');
  let result = await verifyTimestampToken(tsr, digest, roots.auditor ?? roots.study);
  let trustedBy: AnchorVerification['trusted_by'] = result.ok ? (roots.auditor ? 'auditor' : 'study') : null;
  // Under the auditor's roots, a token whose only failure is its chain may still be one the study
  // trusts: reported as such (a witness only the study vouches for), never counted.
  if (roots.auditor && result.reason_codes.length === 1 && result.reason_codes[0] === 'TSA_CHAIN_UNTRUSTED') {
    const underStudy = await verifyTimestampToken(tsr, digest, roots.study);
    if (underStudy.ok) {
      result = underStudy;
      trustedBy = 'study';
    }
  }
  try {
    meta = readJsonFile(join(dir, `${witness}.json`)) as Partial<AnchorMetadata>;
    metaProblems = metadataProblems(meta, {
      witness,
      tsrSha256: sha256Hex(tsr),
      freezeDigestHex,
      imprintMatches: !result.reason_codes.includes('TSA_IMPRINT_MISMATCH'),
      genTime: result.genTime,
    });
  } catch (err) {
    metaProblems = [`${witness}.json cannot be read: ${(err as Error).message}`];
  }
  const codes: ReasonCode[] = [...result.reason_codes];
  if (result.genTime !== undefined && Date.parse(result.genTime) >= Date.parse(opensAt)) codes.push('ANCHOR_AFTER_OPEN');
  if (metaProblems.length > 0) codes.push('ANCHOR_METADATA_MISMATCH');
  return {
    metadata_problems: metaProblems,
    witness,
    file: `${label}/${file}`,
    ok: codes.length === 0,
    reason_codes: codes,
    gen_time: result.genTime ?? null,
    signer: result.signerSubject ?? result.tsaName ?? null,
    signer_cert_sha256: result.signerCertSha256 ?? null,
    root_sha256: result.rootSha256 ?? null,
    trusted_by: codes.length === 0 ? trustedBy : null,
    url: typeof meta.url === 'string' ? meta.url : null,
    retrieved_via: typeof meta.retrieved_via === 'string' ? meta.retrieved_via : null,
    retrieved_at: typeof meta.retrieved_at === 'string' ? meta.retrieved_at : null,
  };
}

/** Every anchor token of `dir` (preregistration/anchors/), in file order, verified as verifyAnchor verifies one. */
export async function verifyAnchors(
  dir: string,
  freezeDigestHex: string,
  roots: AnchorRoots,
  opensAt: string,
  label?: string,
): Promise<AnchorVerification[]> {
  const witnesses: AnchorVerification[] = [];
  for (const file of listAnchorTokens(dir)) witnesses.push(await verifyAnchor(dir, file, freezeDigestHex, roots, opensAt, label));
  return witnesses;
}

export type AnchorFailureCode = 'ANCHOR_AFTER_OPEN' | 'AMENDMENT_AFTER_OPEN' | 'ANCHOR_METADATA_MISMATCH' | 'ANCHOR_INVALID';

/**
 * The one code a failing anchor is reported under: its own code when a single anchor rule failed
 * (dated after opens_at, its metadata not its token's), else ANCHOR_INVALID (the token itself does
 * not verify; its codes follow in the message). Dated after opens_at, the anchor of a freeze that
 * amends another is AMENDMENT_AFTER_OPEN: a change of plan after the fact.
 */
export function anchorFailureCode(anchor: Pick<AnchorVerification, 'reason_codes'>, ofAmendment = false): AnchorFailureCode {
  const [only, ...rest] = anchor.reason_codes;
  if (rest.length > 0 || (only !== 'ANCHOR_AFTER_OPEN' && only !== 'ANCHOR_METADATA_MISMATCH')) return 'ANCHOR_INVALID';
  return only === 'ANCHOR_AFTER_OPEN' && ofAmendment ? 'AMENDMENT_AFTER_OPEN' : only;
}

/** A failing anchor of the chain of freezes, with its code, and the kept freeze it anchors (null: the current one). */
export interface FailingAnchor {
  code: AnchorFailureCode;
  anchor: AnchorVerification;
  keptFreeze: string | null;
}

/**
 * Every anchor of every freeze of the chain (newest first), each judged against the chain's
 * earliest opens_at: every freeze must be anchored before the window first announced opened
 * (docs/preregistration.md, "Amendments"). check-anchors and doctor report what this finds.
 */
export async function verifyChainAnchors(
  chain: FreezeChain,
  roots: AnchorRoots,
): Promise<{ links: Array<{ link: ChainLink; witnesses: AnchorVerification[] }>; failing: FailingAnchor[] }> {
  const links: Array<{ link: ChainLink; witnesses: AnchorVerification[] }> = [];
  const failing: FailingAnchor[] = [];
  for (const link of chain.links) {
    const witnesses = await verifyAnchors(link.anchors, link.freeze_digest, roots, chain.opensAt, link.anchorsLabel);
    links.push({ link, witnesses });
    // Only the current freeze is the amendment being judged; a kept one was itself anchored before it.
    const ofAmendment = link.n === null && link.record.amends !== undefined;
    for (const anchor of witnesses.filter((w) => !w.ok))
      failing.push({ code: anchorFailureCode(anchor, ofAmendment), anchor, keptFreeze: link.n === null ? null : link.freeze_digest });
  }
  return { links, failing };
}

/**
 * Witnesses are counted by distinct root (SPEC §12.1): two signing certificates under one root are
 * one authority. Only the witnesses trusted by `by` count: the auditor's roots when the auditor
 * supplied some, else the study's own.
 */
export function countIndependentWitnesses(anchors: readonly AnchorVerification[], by: 'auditor' | 'study' = 'study'): number {
  return new Set(anchors.filter((a) => a.ok && a.trusted_by === by).map((a) => a.root_sha256)).size;
}

/** The witnesses that verify only under the study's own roots (every valid one when the auditor supplied none). */
export function studyOnlyWitnesses(anchors: readonly AnchorVerification[]): AnchorVerification[] {
  return anchors.filter((a) => a.ok && a.trusted_by === 'study');
}

/** At least one witness, the study's frozen minimum, and --min-witnesses: the highest. */
export function requiredWitnesses(flag: unknown, frozen: number): number {
  let asked = 0;
  if (typeof flag === 'string') {
    if (!/^[0-9]+$/.test(flag)) throw new PreregError('USAGE', `--min-witnesses must be a whole number, got ${JSON.stringify(flag)}`);
    asked = Number(flag);
  }
  return Math.max(1, asked, frozen);
}

const HEX64 = /^[0-9a-f]{64}$/;

/** `--expect-freeze`, lowercased; USAGE when it is not 64 hex digits. */
export function expectedFreeze(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const hex = value.toLowerCase();
  if (!HEX64.test(hex))
    throw new PreregError('USAGE', `--expect-freeze must be the 64 hex digits of a freeze_digest, got ${JSON.stringify(value)}`);
  return hex;
}
