// What a validated TSA certificate path must also satisfy, beyond what pkijs's chain engine checks
// (signatures, names, validity, policies, name constraints, and that every issuer — the root
// included — is a CA whose keyUsage, if any, has keyCertSign): the rules `openssl ts -verify`
// enforces on every certificate of the path (OpenSSL's check_chain_extensions), so that a witness
// whose CA was not allowed to issue is refused here as OpenSSL refuses it. Pure: a path in (the
// signer first, the pinned root last), its defects out.
//
//  - no issuer's pathLenConstraint is exceeded: the certificates between it and the signer that are
//    not self-issued number at most its pathLenConstraint (RFC 5280 §4.2.1.9, §6.1.4 (l)–(m));
//  - no certificate carries a critical extension prereg does not process (RFC 5280 §4.2: such a
//    certificate MUST be rejected). Processed: those pkijs's engine or this project enforces, all
//    among the ones OpenSSL handles (v3_purp.c supported_nids). OpenSSL also handles a few more
//    (netscape cert type, CRL distribution points, RFC 3779 address blocks, proxy certificates,
//    OCSP no-check): critical, they are refused here, stricter than OpenSSL (docs/trust.md).
import { asn1js, pkijs } from '../../vendor/pki.ts';

const PROCESSED_CRITICAL: ReadonlySet<string> = new Set([
  '2.5.29.15', // keyUsage: pkijs (issuers) and rfc3161.ts (the signer)
  '2.5.29.17', // subjectAltName: name constraints (pkijs)
  '2.5.29.19', // basicConstraints: cA (pkijs), pathLenConstraint (here)
  '2.5.29.30', // nameConstraints (pkijs)
  '2.5.29.32', // certificatePolicies (pkijs)
  '2.5.29.33', // policyMappings (pkijs)
  '2.5.29.36', // policyConstraints (pkijs)
  '2.5.29.37', // extKeyUsage: rfc3161.ts (the signer)
  '2.5.29.54', // inhibitAnyPolicy (pkijs)
]);
const BASIC_CONSTRAINTS = '2.5.29.19';

export interface PathDefects {
  /** An issuer whose path length constraint is exceeded. */
  pathLength: boolean;
  /** A certificate with a critical extension prereg does not process. */
  criticalExtension: boolean;
}

/** Judged once per validated path (rfc3161.ts reuses the path object of a chain it validated before). */
const judged = new WeakMap<readonly pkijs.Certificate[], PathDefects>();

export function pathDefects(path: readonly pkijs.Certificate[]): PathDefects {
  let defects = judged.get(path);
  if (defects === undefined) judged.set(path, (defects = judge(path)));
  return defects;
}

function judge(path: readonly pkijs.Certificate[]): PathDefects {
  const criticalExtension = path.some((cert) => (cert.extensions ?? []).some((ext) => ext.critical && !PROCESSED_CRITICAL.has(ext.extnID)));
  let pathLength = false;
  // Non-self-issued certificates below the issuer being judged, the signer excluded (OpenSSL's plen).
  let below = 0;
  path.forEach((cert, i) => {
    if (i === 0) return;
    const limit = basicConstraints(cert)?.pathLenConstraint;
    if (limit !== undefined && exceeds(below, limit)) pathLength = true;
    if (!selfIssued(cert)) below++;
  });
  return { pathLength, criticalExtension };
}

function basicConstraints(cert: pkijs.Certificate): pkijs.BasicConstraints | undefined {
  const ext = cert.extensions?.find((e) => e.extnID === BASIC_CONSTRAINTS);
  return ext?.parsedValue instanceof pkijs.BasicConstraints ? ext.parsedValue : undefined;
}

/** pkijs keeps a pathLenConstraint too large for a JS number as its INTEGER: no limit reachable. */
function exceeds(below: number, limit: number | asn1js.Integer): boolean {
  if (typeof limit === 'number') return limit < 0 || below > limit;
  return limit.valueBlock.isHexOnly && (limit.valueBlock.valueHexView[0]! & 0x80) !== 0; // negative: invalid
}

function selfIssued(cert: pkijs.Certificate): boolean {
  return cert.subject.isEqual(cert.issuer);
}
