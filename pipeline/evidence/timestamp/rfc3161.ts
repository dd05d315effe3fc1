// RFC 3161 timestamp tokens: full verification of one token of any TSA over given bytes or a
// given imprint (SPEC §4.4 check-anchors, §6.1 step 5, §12.7 verify-token). Pure: no file
// system, clock or network.
//
// Every check runs and is recorded, and every failure is reported (a study needs each check's
// outcome); a check that cannot run because what it needs is missing is 'skipped'.
// Bad tokens never throw; only a caller bug (a subject that is not bytes) does.
//
// What runs where:
//  - the token is read by token.ts (walked by byte range; TSTInfo and SignerInfo decoded
//    by hand, certificates by pkijs once each);
//  - the imprint's algorithm is the token's own (SHA-256, SHA-384 or SHA-512; SHA-1 is weak),
//    and the imprint is compared here, before and apart from the signature (pkijs's
//    SignedData.verify compares it itself and throws before looking at the signature, merging
//    two failures);
//  - the CMS signature (content-type and message-digest attributes, signature over the signed
//    attributes) is checked by cms-signer-info.ts with node:crypto, the signer's key imported once;
//    one hashed with SHA-1 or MD5 is TSA_HASH_WEAK and not checked (OpenSSL still accepts it: a
//    deliberate difference, a SHA-1 signature is forgeable by collision);
//  - the signer certificate is the one the SignerInfo's sid names among the token's certificates
//    and, after them, the policy's tsa_certs (SPEC §5.4: as `openssl ts -verify -untrusted`;
//    FreeTSA's tokens carry none). A supplied certificate is path material, never an anchor: it
//    is fed to the chain engine as untrusted, and the binding and EKU checks judge it as they
//    judge a carried one. A pinned root is an anchor only: it ends a path, it is never looked up
//    as the signer (OpenSSL's PKCS7_get0_signers does not look in the CA file either);
//  - the chain is pkijs's CertificateChainValidationEngine, run directly with the inputs
//    SignedData.verify({ checkChain: true }) would give it (intermediate CAs from the token and
//    tsa_certs, the signer, the pinned roots, checkDate = genTime unless the caller names another
//    time, as `openssl ts -verify -attime`), so its outcome is its own result;
//  - on the validated path, what OpenSSL checks and pkijs does not: path length constraints and
//    critical extensions prereg does not process, on every certificate (certificate-path.ts);
//  - pkijs checks neither the ESSCertID/ESSCertIDv2 attribute (ess-cert-id.ts) nor the
//    timeStamping EKU (here).
// Extra certificates in the token's bag never sign: only the one the SignerInfo names is the
// signer, and every check (signature, binding, chain, EKU) judges that one.
// Revocation (CRL/OCSP) is not checked: the SPEC pins roots and bounds genTime instead.
//
// Cost: this runs for every proof token of a study. Each carried certificate is decoded once, the
// signer's key imported once, a validated path reused (only validity dates re-checked), and the
// outcomes that depend only on bytes shared by every token of a TSA (sid issuer, ESSCertID
// binding) decided once.
import { createHash, createPublicKey, hash, type KeyObject } from 'node:crypto';
import { asn1js, pkijs } from '../../vendor/pki.ts';
import { sha256Hex } from '../../formats/hash.ts';
import { HASH_ALGORITHMS, isSha2, type Sha2Hash } from '../../formats/hash-algorithms.ts';
import { PreregError } from '../../reasons.ts';
import { bytesEqual, signerInfoHashWeak, signerInfoSignatureValid, type SignerInfo } from './cms-signer-info.ts';
import { checkOnThisThread, type SignatureCheck } from '../signature-check.ts';
import { signerCertificateBound } from './ess-cert-id.ts';
import { pathDefects } from './certificate-path.ts';
import { answersRequest } from './request-match.ts';
import type { TimestampRequest } from '../../formats/timestamp-request.ts';
import {
  bytesKey,
  formatName,
  hex,
  MEMO_LIMIT,
  newMemo,
  parseCertificate,
  parseToken,
  remembered,
  TOKEN_OID,
  type CarriedCertificate,
  type TsaMemo,
} from './token.ts';
import type { CheckOutcome } from '../check-outcome.ts';
import { checkCatalogue, codeOfCheck } from '../check-catalogue.ts';

const OID = {
  tstInfo: TOKEN_OID.tstInfo,
  extKeyUsage: '2.5.29.37',
  keyUsage: '2.5.29.15',
  kpTimeStamping: '1.3.6.1.5.5.7.3.8', // id-kp-timeStamping, RFC 3161 §2.3
} as const;

/** Hash algorithms we can name (imprints). */
const HASHES = HASH_ALGORITHMS;

/** The checks, in the order they are recorded. */
export const TIMESTAMP_CHECKS = [
  'parse',
  'status',
  'imprint_algorithm',
  'imprint',
  'nonce',
  'policy',
  'signer',
  'signature_algorithm',
  'signature',
  'signer_binding',
  'chain',
  'path_length',
  'critical_extensions',
  'eku',
] as const;
export type TimestampCheck = (typeof TIMESTAMP_CHECKS)[number];

/** The reason code a failed check reports; any one leaves the token INVALID (it witnesses nothing). */
export const TIMESTAMP_CATALOGUE = checkCatalogue(TIMESTAMP_CHECKS, ['INVALID'], {
  TSA_TOKEN_MALFORMED: { check: 'parse', status: 'INVALID' },
  TSA_STATUS_REJECTED: { check: 'status', status: 'INVALID' },
  // SHA-1 (or an algorithm we cannot name) in the imprint: a second preimage is not ruled out, so
  // the imprint binds nothing; SHA-1 or MD5 in the signature: a collision lets it sign another TSTInfo.
  TSA_HASH_WEAK: { check: ['imprint_algorithm', 'signature_algorithm'], status: 'INVALID' },
  TSA_IMPRINT_MISMATCH: { check: 'imprint', status: 'INVALID' },
  // Against the request (options.request), as `openssl ts -verify -queryfile`; skipped without one.
  TSA_NONCE_MISMATCH: { check: 'nonce', status: 'INVALID' },
  TSA_POLICY_MISMATCH: { check: 'policy', status: 'INVALID' },
  // No certificate the token carries or the policy supplies (tsa_certs) is the one its SignerInfo
  // names: there is no key to check the signature with.
  TSA_SIGNER_NOT_FOUND: { check: 'signer', status: 'INVALID' },
  TSA_SIGNATURE_INVALID: { check: 'signature', status: 'INVALID' },
  TSA_SIGNER_UNBOUND: { check: 'signer_binding', status: 'INVALID' },
  TSA_CHAIN_UNTRUSTED: { check: 'chain', status: 'INVALID' },
  // On the validated path (certificate-path.ts), as `openssl ts -verify` checks it.
  TSA_CHAIN_PATH_LENGTH: { check: 'path_length', status: 'INVALID' },
  TSA_CHAIN_CRITICAL_EXTENSION: { check: 'critical_extensions', status: 'INVALID' },
  TSA_EKU_MISSING: { check: 'eku', status: 'INVALID' },
});
export const TIMESTAMP_CHECK_CODES = codeOfCheck(TIMESTAMP_CATALOGUE);
export type TsaReasonCode = (typeof TIMESTAMP_CHECK_CODES)[TimestampCheck];

/**
 * Whether a code says that the trust material falls short (no pinned root the token chains to, no
 * signer certificate carried or in tsa_certs) rather than the token itself: a proof's token is then
 * untrusted, not invalid (PROOF_TSA_UNTRUSTED). Every code of the catalogue says which.
 */
export const TSA_TRUST_GAP: { readonly [C in TsaReasonCode]: boolean } = {
  TSA_TOKEN_MALFORMED: false,
  TSA_STATUS_REJECTED: false,
  TSA_HASH_WEAK: false,
  TSA_IMPRINT_MISMATCH: false,
  TSA_NONCE_MISMATCH: false,
  TSA_POLICY_MISMATCH: false,
  TSA_SIGNER_NOT_FOUND: true,
  TSA_SIGNATURE_INVALID: false,
  TSA_SIGNER_UNBOUND: false,
  TSA_CHAIN_UNTRUSTED: true,
  TSA_CHAIN_PATH_LENGTH: false,
  TSA_CHAIN_CRITICAL_EXTENSION: false,
  TSA_EKU_MISSING: false,
};

/** Pinned TSA roots and supplied TSA certificates, decoded once and reused for every token. Treat as immutable. */
export interface TsaTrust {
  roots: pkijs.Certificate[];
  /** SHA-256 (hex) of each root's DER, in the order of `roots`. */
  rootsSha256: string[];
  /**
   * The policy's tsa_certs: signing and intermediate certificates for tokens that do not carry
   * them. Searched after the token's own; never anchors (SPEC §5.4). Absent: none.
   */
  supplied?: CarriedCertificate[];
  /**
   * Work reused across tokens (set by loadTsaTrust): parsed certificates by DER digest, and chains
   * already validated against these roots. Derived data only — results are the same without it.
   */
  memo?: TsaMemo;
}

/**
 * What a token must timestamp. Bytes (or `{ data }`): the message itself — the imprint must be
 * its hash under the token's algorithm. `{ imprint }`: the message imprint itself (the hash a
 * client sent). `hash` asserts the algorithm; a token using another fails the imprint check.
 */
export type TimestampSubject = Uint8Array | { data: Uint8Array; hash?: Sha2Hash } | { imprint: Uint8Array; hash?: Sha2Hash };

export interface TimestampOptions {
  /** When certificate validity is judged; default the token's genTime (as `openssl ts -verify -attime <genTime>`). */
  at?: Date;
  /** Where the TSA's signature is checked (evidence/signature-check.ts); default this thread. */
  signatures?: SignatureCheck;
  /**
   * The request the token answers (`openssl ts -verify -queryfile`): its nonce, when it has one,
   * and its policy, when it names one, must be the token's (checks nonce, policy). The imprint is
   * the subject's: give the request's as `{ imprint }`.
   */
  request?: TimestampRequest;
}

export interface TimestampVerification {
  /** No check failed. ('status' is 'skipped' for a bare TimeStampToken, which has no PKIStatusInfo.) */
  ok: boolean;
  /** Every failure, in check order; empty when ok. */
  reason_codes: TsaReasonCode[];
  checks: Record<TimestampCheck, CheckOutcome>;
  /** TSTInfo genTime as ISO-8601 UTC with 'Z'; fractional seconds kept exactly as the token has them. */
  genTime?: string;
  /** TSTInfo serialNumber, decimal. */
  serialNumber?: string;
  /** TSA policy OID. */
  policy?: string;
  /** TSTInfo tsa field (a directoryName as an RFC 4514 string), when present. */
  tsaName?: string;
  /** Subject of the signer certificate, RFC 4514 string. */
  signerSubject?: string;
  /** SHA-256 (hex) of the signer certificate's DER as carried in the token. */
  signerCertSha256?: string;
  /**
   * SHA-256 (hex) of the DER of the pinned root the signer chained to, when the chain check
   * passed: what an auditor compares with the roots it trusts (SPEC §12.1), and how witnesses
   * are told apart (two signers under one root are one witness).
   */
  rootSha256?: string;
  /** Hash algorithm of the message imprint ('SHA-256', 'SHA-384', 'SHA-512', 'SHA-1', else the OID). */
  hashAlgorithm?: string;
  /** The message imprint the token carries, hex. */
  hashedMessage?: string;
  /** The time certificate validity was judged at (ISO-8601 UTC): the caller's, else genTime. */
  validityAt?: string;
  /** TSTInfo nonce, decimal, when present: the client compares it with the nonce it sent. */
  nonce?: string;
  /** PKIStatus of a TimeStampResp (0 granted, 1 grantedWithMods, 2 rejection, …). */
  pkiStatus?: number;
  /** PKIFreeText of a TimeStampResp, joined with '; ', when present. */
  statusText?: string;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;

/**
 * Decode pinned TSA roots and supplied TSA certificates (tsa_certs) from PEM texts (each may
 * hold several certificates; `names` are their files, for messages). Throws PreregError TSA_TRUST_INVALID for a text without a
 * certificate or one that does not parse. Identical certificates given twice are kept once; the
 * supplied ones are decoded once here and shared with the tokens that carry the same bytes.
 */
export function loadTsaTrust(
  rootPemTexts: string[],
  certPemTexts: string[] = [],
  names: { roots?: readonly string[]; certs?: readonly string[] } = {},
): TsaTrust {
  const memo = newMemo();
  const roots = decodePemCertificates(rootPemTexts, (i) =>
    names.roots?.[i] === undefined ? `TSA roots text #${i + 1}` : `tsa_roots[${i}] (${names.roots[i]})`,
  );
  const supplied = decodePemCertificates(certPemTexts, (i) =>
    names.certs?.[i] === undefined ? `TSA certificates text #${i + 1}` : `tsa_certs[${i}] (${names.certs[i]})`,
  );
  for (const c of supplied) memo.certificates.set(c.sha256, c.cert);
  return { roots: roots.map((c) => c.cert), rootsSha256: roots.map((c) => c.sha256), supplied, memo };
}

function decodePemCertificates(texts: string[], where: (index: number) => string): CarriedCertificate[] {
  const out: CarriedCertificate[] = [];
  texts.forEach((text, index) => {
    const blocks = [...text.matchAll(PEM_CERT)];
    if (blocks.length === 0) {
      throw new PreregError('TSA_TRUST_INVALID', `${where(index)} holds no PEM certificate`);
    }
    blocks.forEach((block, n) => {
      const der = new Uint8Array(Buffer.from(block[1]!.replace(/\s+/g, ''), 'base64'));
      let cert: pkijs.Certificate;
      try {
        cert = parseCertificate(der);
      } catch (e) {
        throw new PreregError(
          'TSA_TRUST_INVALID',
          `${where(index)}, certificate #${n + 1} does not parse: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
      const sha256 = sha256Hex(der);
      if (!out.some((c) => c.sha256 === sha256)) out.push({ der, sha256, cert });
    });
  });
  return out;
}

/**
 * Verify an RFC 3161 token — a TimeStampResp (.tsr, what TSAs return over HTTP) or a bare
 * TimeStampToken ContentInfo — over `subject` against the pinned roots.
 *
 * The stages pass a 32-byte digest (freeze_digest, a chain hash, an intake entry's digest) as the
 * message: the TSA was asked to timestamp those bytes (SPEC §4.4), so the imprint is their hash
 * under the token's algorithm, SHA-256, SHA-384 or SHA-512 (the token says which; SHA-1 is
 * TSA_HASH_WEAK).
 */
export async function verifyTimestampToken(
  token: Uint8Array,
  subject: TimestampSubject,
  trust: TsaTrust,
  options: TimestampOptions = {},
): Promise<TimestampVerification> {
  const wanted = subject instanceof Uint8Array ? { data: subject } : subject;
  const bytes = 'imprint' in wanted ? wanted.imprint : wanted.data;
  if (!(bytes instanceof Uint8Array)) throw new TypeError('verifyTimestampToken: the subject must be bytes (data or imprint)');
  if (options.at !== undefined && Number.isNaN(options.at.getTime()))
    throw new TypeError('verifyTimestampToken: options.at is not a valid date');
  const checks: Record<TimestampCheck, CheckOutcome> = {
    parse: 'skipped',
    status: 'skipped',
    imprint_algorithm: 'skipped',
    imprint: 'skipped',
    nonce: 'skipped',
    policy: 'skipped',
    signer: 'skipped',
    signature_algorithm: 'skipped',
    signature: 'skipped',
    signer_binding: 'skipped',
    chain: 'skipped',
    path_length: 'skipped',
    critical_extensions: 'skipped',
    eku: 'skipped',
  };
  const result: TimestampVerification = { ok: false, reason_codes: [], checks };
  const finish = (): TimestampVerification => {
    result.reason_codes = [...new Set(TIMESTAMP_CHECKS.filter((c) => checks[c] === 'fail').map((c) => TIMESTAMP_CHECK_CODES[c]))];
    result.ok = result.reason_codes.length === 0;
    return result;
  };

  // Parse (and, for a TimeStampResp, PKIStatus, RFC 3161 §2.4.2).
  const memo = trust.memo ?? newMemo();
  const parsed = parseToken(token, memo);
  if (parsed.kind === 'malformed') {
    checks.parse = 'fail';
    return finish();
  }
  checks.parse = 'pass';
  if (parsed.pkiStatus !== undefined) result.pkiStatus = parsed.pkiStatus;
  if (parsed.statusText !== undefined) result.statusText = parsed.statusText;
  if (parsed.kind === 'rejected') {
    checks.status = 'fail';
    return finish();
  }
  if (parsed.pkiStatus !== undefined) checks.status = 'pass';
  const { signerInfo, tstInfo } = parsed;
  result.genTime = tstInfo.genTime;
  result.serialNumber = tstInfo.serialNumber.toString();
  result.policy = tstInfo.policy;
  if (tstInfo.nonce !== undefined) result.nonce = tstInfo.nonce.toString();
  if (parsed.tsaName !== undefined) result.tsaName = parsed.tsaName;

  // Message imprint, compared before and apart from any signature work, under the token's own
  // algorithm when it is SHA-2.
  const algorithm = HASHES[tstInfo.imprintAlgorithm];
  result.hashAlgorithm = algorithm?.name ?? tstInfo.imprintAlgorithm;
  result.hashedMessage = hex(tstInfo.hashedMessage);
  if (algorithm && isSha2(algorithm.node)) {
    checks.imprint_algorithm = 'pass';
    const expected = 'imprint' in wanted ? wanted.imprint : hash(algorithm.node, wanted.data, 'buffer');
    const asserted = wanted.hash === undefined || wanted.hash === algorithm.node;
    checks.imprint = asserted && bytesEqual(tstInfo.hashedMessage, expected) ? 'pass' : 'fail';
  } else {
    checks.imprint_algorithm = 'fail';
  }
  if (options.request !== undefined) {
    const answer = answersRequest(tstInfo, options.request);
    if (answer.nonce !== null) checks.nonce = answer.nonce ? 'pass' : 'fail';
    if (answer.policy !== null) checks.policy = answer.policy ? 'pass' : 'fail';
  }
  const validityAt = options.at ?? tstInfo.genDate;
  result.validityAt = validityAt.toISOString();

  // The signer certificate, from the token (certReq) or the policy's tsa_certs; without it
  // nothing below can run.
  const certificates = withSupplied(parsed.certificates, trust.supplied);
  const signer = findSignerCertificate(certificates, signerInfo, memo);
  if (!signer) {
    checks.signer = 'fail';
    return finish();
  }
  checks.signer = 'pass';
  // Per signer certificate, the same in every token of a TSA: formatted and judged once.
  result.signerSubject = remembered(memo.names, `subject/${signer.sha256}`, () => formatName(signer.cert.subject));
  result.signerCertSha256 = signer.sha256;

  // A signature hashed with SHA-1 is weak, not tampered with: it is not checked (as the imprint of a weak algorithm is not compared).
  checks.signature_algorithm = signerInfoHashWeak(signerInfo) ? 'fail' : 'pass';
  if (checks.signature_algorithm === 'pass') {
    const key = signerKey(signer, memo);
    checks.signature =
      key && (await signerInfoSignatureValid(signerInfo, parsed.eContent, OID.tstInfo, key, options.signatures ?? checkOnThisThread))
        ? 'pass'
        : 'fail';
  }
  const chained = await signerChainsToPinnedRoot(certificates, signer, validityAt, trust, memo);
  checks.chain = chained !== null ? 'pass' : 'fail';
  if (chained !== null) {
    result.rootSha256 = chained.root;
    const defects = pathDefects(chained.path);
    checks.path_length = defects.pathLength ? 'fail' : 'pass';
    checks.critical_extensions = defects.criticalExtension ? 'fail' : 'pass';
  }
  checks.signer_binding = signerCertificateBound(signerInfo, signer, memo) ? 'pass' : 'fail';
  checks.eku = remembered(memo.decisions, `eku/${signer.sha256}`, () => hasTimeStampingEku(signer.cert)) ? 'pass' : 'fail';
  return finish();
}

// --- signer certificate, signature, chain ---------------------------------------------------

/** The token's certificates, then the supplied ones it does not carry (same DER counted once). */
function withSupplied(carried: CarriedCertificate[], supplied: readonly CarriedCertificate[] | undefined): CarriedCertificate[] {
  if (!supplied || supplied.length === 0) return carried;
  return [...carried, ...supplied.filter((s) => !carried.some((c) => c.sha256 === s.sha256))];
}

/**
 * The carried certificate the SignerInfo's sid names, matched as pkijs's SignedData.verify matches
 * it: issuer name (pkijs's comparison) and serial number, or the SHA-1 of the subjectPublicKey bits
 * as subjectKeyIdentifier (RFC 5280 §4.2.1.2 method 1). A name comparison is decided once per
 * (sid issuer bytes, certificate).
 */
function findSignerCertificate(certificates: CarriedCertificate[], signerInfo: SignerInfo, memo: TsaMemo): CarriedCertificate | undefined {
  const sid = signerInfo.sid;
  if (sid.kind === 'issuerAndSerialNumber') {
    let issuer: string | undefined;
    return certificates.find(
      (c) =>
        bytesEqual(c.cert.serialNumber.valueBlock.valueHexView, sid.serial) &&
        remembered(memo.decisions, `sid/${c.sha256}/${(issuer ??= bytesKey(sid.issuer))}`, () => {
          try {
            return new pkijs.RelativeDistinguishedNames({ schema: asn1js.fromBER(sid.issuer.slice()).result }).isEqual(c.cert.issuer);
          } catch {
            return false;
          }
        }),
    );
  }
  return certificates.find((c) => {
    const spk = c.cert.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView;
    return bytesEqual(createHash('sha1').update(spk).digest(), sid.keyId);
  });
}

/** The signer certificate's public key, imported once per certificate; undefined when Node cannot import it. */
function signerKey(signer: CarriedCertificate, memo: TsaMemo): KeyObject | undefined {
  const key = remembered(memo.keys, signer.sha256, () => {
    try {
      return createPublicKey({ key: Buffer.from(signer.cert.subjectPublicKeyInfo.toSchema().toBER(false)), format: 'der', type: 'spki' });
    } catch {
      return null;
    }
  });
  return key ?? undefined;
}

/**
 * The pinned root (SHA-256 of its DER) the signer certificate chains to at `at` (genTime unless
 * the caller said otherwise), with the validated path (signer first, root last), or null: pkijs's chain engine fed as SignedData.verify({
 * checkChain: true }) feeds it (CA certificates from the token and tsa_certs as untrusted + the
 * signer, checkDate = at). A path once
 * validated is remembered; for a later token only its certificates' validity periods depend on
 * the date, so only they are re-checked.
 */
async function signerChainsToPinnedRoot(
  certificates: CarriedCertificate[],
  signer: CarriedCertificate,
  at: Date,
  trust: TsaTrust,
  memo: TsaMemo,
): Promise<{ root: string; path: readonly pkijs.Certificate[] } | null> {
  if (trust.roots.length === 0) return null;
  const validAt = (c: pkijs.Certificate): boolean => c.notBefore.value <= at && at <= c.notAfter.value;
  // A signer pinned directly: pkijs's engine would drop it as a duplicate of the trusted copy and
  // validate another certificate, so decide here: pinned and valid at `at`.
  if (trust.rootsSha256.includes(signer.sha256)) return validAt(signer.cert) ? { root: signer.sha256, path: [signer.cert] } : null;
  const intermediates = certificates.filter((c) => c !== signer && pkijs.checkCA(c.cert, signer.cert) !== null);
  const key = [signer.sha256, ...intermediates.map((c) => c.sha256).sort()].join(',');
  // Tokens in flight at once (verify DIR runs 256 files concurrently) wait for the path being
  // validated rather than each running the engine: it is remembered while it runs, kept when it
  // validates, forgotten when it does not (a failure at one date says nothing of another).
  const known = memo.chains.get(key);
  const knownPath = known === undefined ? null : await known.catch(() => null);
  if (knownPath && knownPath.every(validAt)) return pinnedRootOf(knownPath, trust);
  const run = validatedPath(intermediates, signer, at, trust);
  const remember = () => {
    if (memo.chains.size >= MEMO_LIMIT) memo.chains.clear();
    memo.chains.set(key, run);
  };
  if (!memo.chains.has(key)) remember();
  let path: pkijs.Certificate[] | null;
  try {
    path = await run;
  } catch (e) {
    if (memo.chains.get(key) === run) memo.chains.delete(key);
    throw e;
  }
  if (path === null) {
    if (memo.chains.get(key) === run) memo.chains.delete(key);
    return null;
  }
  if (memo.chains.get(key) !== run) remember();
  return pinnedRootOf(path, trust);
}

/** pkijs's chain engine on the signer and its intermediates at `at`: the validated path, or null. */
async function validatedPath(
  intermediates: CarriedCertificate[],
  signer: CarriedCertificate,
  at: Date,
  trust: TsaTrust,
): Promise<pkijs.Certificate[] | null> {
  const engine = new pkijs.CertificateChainValidationEngine({
    checkDate: at,
    certs: [...intermediates.map((c) => c.cert), signer.cert],
    trustedCerts: trust.roots,
  });
  const outcome = await engine.verify();
  return outcome.result === true ? (outcome.certificatePath ?? []) : null;
}

/** The SHA-256 of the pinned root a validated path ends in (the engine returns the trusted object itself), with the path. */
function pinnedRootOf(path: readonly pkijs.Certificate[], trust: TsaTrust): { root: string; path: readonly pkijs.Certificate[] } | null {
  for (const cert of path) {
    const index = trust.roots.indexOf(cert);
    if (index !== -1) return { root: trust.rootsSha256[index]!, path };
  }
  return null;
}

// --- extended key usage ------------------------------------------------------------------------

/**
 * RFC 3161 §2.3: one extended key usage extension, critical, whose only purpose is
 * id-kp-timeStamping; and a key usage, when present, of digitalSignature and/or nonRepudiation
 * only. OpenSSL's timestamp-signing purpose (`openssl ts -verify`) requires the same.
 */
function hasTimeStampingEku(cert: pkijs.Certificate): boolean {
  const extensions = cert.extensions ?? [];
  const eku = extensions.filter((ext) => ext.extnID === OID.extKeyUsage);
  if (eku.length !== 1) return false;
  const [ext] = eku as [pkijs.Extension];
  if (!ext.critical || !(ext.parsedValue instanceof pkijs.ExtKeyUsage)) return false;
  const purposes = ext.parsedValue.keyPurposes;
  if (purposes.length !== 1 || purposes[0] !== OID.kpTimeStamping) return false;
  const keyUsage = extensions.find((e) => e.extnID === OID.keyUsage);
  return keyUsage === undefined || keyUsageForSigning(keyUsage);
}

/** KeyUsage ::= BIT STRING; bit 0 digitalSignature, bit 1 nonRepudiation: one of them, and no other bit set. */
function keyUsageForSigning(ext: pkijs.Extension): boolean {
  const bits = ext.parsedValue instanceof asn1js.BitString ? ext.parsedValue.valueBlock.valueHexView : undefined;
  if (!bits || bits.length === 0) return false;
  const signing = 0x80 | 0x40;
  return (bits[0]! & signing) !== 0 && (bits[0]! & ~signing) === 0 && bits.subarray(1).every((b) => b === 0);
}
