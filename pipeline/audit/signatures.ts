// The signatures rail: both signatures over manifest.json go back to the operator key pinned in
// the study's frozen trust policy (docs/outputs.md, "Signatures").
//
// - manifest.sig: Ed25519 (RFC 8032) over the exact manifest.json bytes, verified with the pinned key;
// - manifest.p7s: detached CMS SignedData (RFC 5652), verified with pkijs over the manifest.json
//   bytes; its signer certificate is the RSA CMS certificate it embeds, and that certificate must
//   be signed by the pinned Ed25519 key (node's X509Certificate.verify). No clock: certificate
//   validity periods are not judged, the pinned key is.
import { verify as cryptoVerify, X509Certificate, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { asn1js, pkijs } from '../vendor/pki.ts';
import { CMS_FILE, MANIFEST_FILE, SIGNATURE_FILE } from '../emit/manifest.ts';
import type { PinnedOperatorKey } from '../study/operator-key.ts';
import type { LoadedStudy } from '../study/loaded-study.ts';
import { preconditionOf } from '../study/preconditions.ts';
import type { ReasonCode } from '../reasons.ts';
import { railOf, type Difference, type Rail } from './rails.ts';
import { readRegularFile } from '../io/regular-file.ts';
import { assembleCmsDetached, cmsSignedBytes } from '../emit/sign.ts';

const POLICY_FILE = 'preregistration/trust/policy.json';

/** The operator's Ed25519 public key pinned by the study's trust policy, or why there is none. */
export function pinnedOperatorKeyOf(loaded: LoadedStudy): PinnedOperatorKey | { problem: Difference; code: ReasonCode } {
  try {
    return loaded.operatorKey();
  } catch (err) {
    const p = preconditionOf(err, { file: POLICY_FILE });
    return { problem: { file: p.file ?? POLICY_FILE, message: p.message }, code: p.code };
  }
}

/** Why a detached CMS signature does not verify over `content` (null when it does). */
export async function cmsProblem(p7s: Uint8Array, content: Uint8Array, pinned: KeyObject): Promise<string | null> {
  let signedData: pkijs.SignedData;
  try {
    const contentInfo = pkijs.ContentInfo.fromBER(new Uint8Array(p7s));
    if (contentInfo.contentType !== pkijs.ContentInfo.SIGNED_DATA) return `is a CMS ${contentInfo.contentType}, not SignedData`;
    signedData = new pkijs.SignedData({ schema: contentInfo.content as asn1js.Sequence });
  } catch (err) {
    return `is not DER CMS SignedData (${(err as Error).message})`;
  }
  if (signedData.encapContentInfo.eContent) return 'encapsulates its content: the signature must be detached';
  if (signedData.signerInfos.length !== 1) return `has ${signedData.signerInfos.length} signers, not one`;
  const certificates = (signedData.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
  const sid = signedData.signerInfos[0]!.sid;
  const signer =
    sid instanceof pkijs.IssuerAndSerialNumber
      ? certificates.find((c) => c.issuer.isEqual(sid.issuer) && c.serialNumber.isEqual(sid.serialNumber))
      : undefined;
  if (!signer) return 'does not embed its signer certificate (by issuer and serial number)';
  let verified = false;
  try {
    const data = new Uint8Array(content).buffer;
    verified = (await signedData.verify({ signer: 0, data, checkChain: false, extendedMode: true })).signatureVerified === true;
  } catch (err) {
    if (!(err instanceof pkijs.SignedDataVerifyError)) throw err;
  }
  if (!verified) return 'does not verify over manifest.json (message digest or signature)';
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(Buffer.from(signer.toSchema().toBER(false)));
  } catch (err) {
    return `its signer certificate does not parse (${(err as Error).message})`;
  }
  if (cert.publicKey.asymmetricKeyType !== 'rsa')
    return `its signer certificate carries a ${cert.publicKey.asymmetricKeyType ?? 'unknown'} key, not the RSA CMS key`;
  if (!cert.verify(pinned))
    return `its signer certificate (${cert.subject.replaceAll('\n', ', ')}) was not issued by the pinned operator key`;
  // Every other certificate carried (the chain) must be the operator's too: OpenSSL builds its
  // chain from them, so an unchecked one is a byte nothing would vouch for.
  for (const [i, other] of certificates.entries()) {
    if (other === signer) continue;
    let ok = false;
    try {
      ok = new X509Certificate(Buffer.from(other.toSchema().toBER(false))).verify(pinned);
    } catch {
      ok = false;
    }
    if (!ok) return `carries a certificate (number ${i + 1}) not signed by the pinned operator key`;
  }
  // At least as strict as `openssl cms -verify`: the parser above reads BER leniently and skips
  // what it does not check, so the file must also be, byte for byte, the one DER encoding emit
  // writes for its certificates and signature value (every other byte is then fixed by
  // manifest.json), and the RSA signature must verify over the signed attributes of manifest.json.
  const signature = signedData.signerInfos[0]!.signature.valueBlock.valueHexView;
  const expected = assembleCmsDetached(
    certificates.map((c) => new Uint8Array(c.toSchema().toBER(false))),
    content,
    signature,
  );
  const given = Buffer.from(p7s);
  if (!expected.equals(given)) {
    let at = 0;
    while (at < Math.min(expected.length, given.length) && expected[at] === given[at]) at++;
    return `is not the DER CMS SignedData prereg emits over manifest.json (first difference at byte ${at})`;
  }
  if (!cryptoVerify('sha256', cmsSignedBytes(content), cert.publicKey, Buffer.from(signature))) {
    return 'does not verify over manifest.json (message digest or signature)';
  }
  return null;
}

/**
 * manifestIntact (from the schema rail): when manifest.json itself agrees with SHA256SUMS and its
 * artifact digest, a failing signature is the signature file's fault; otherwise manifest.json's.
 */
export async function signaturesRail(dir: string, loaded: LoadedStudy, manifestIntact: boolean): Promise<Rail> {
  const d: Difference[] = [];
  const codes: ReasonCode[] = [];
  const pinned = pinnedOperatorKeyOf(loaded);
  const manifestPath = join(dir, MANIFEST_FILE);
  if ('problem' in pinned) {
    d.push(pinned.problem);
    codes.push(pinned.code);
  } else if (!existsSync(manifestPath)) {
    d.push({ file: MANIFEST_FILE, message: 'is missing: there is nothing the signatures could cover' });
  } else {
    const manifest = readRegularFile(manifestPath);
    const blame = (file: string) => (manifestIntact ? file : MANIFEST_FILE);
    const sigPath = join(dir, SIGNATURE_FILE);
    if (!existsSync(sigPath)) {
      d.push({ file: SIGNATURE_FILE, message: 'is missing' });
    } else {
      const sig = readRegularFile(sigPath);
      if (sig.length !== 64) d.push({ file: SIGNATURE_FILE, message: `has ${sig.length} bytes; an Ed25519 signature has 64` });
      else if (!cryptoVerify(null, manifest, pinned.key, sig)) {
        d.push({
          file: blame(SIGNATURE_FILE),
          message: `the Ed25519 signature in manifest.sig does not verify over manifest.json with the pinned key ${pinned.file}`,
        });
      }
    }
    const p7sPath = join(dir, CMS_FILE);
    if (!existsSync(p7sPath)) {
      d.push({ file: CMS_FILE, message: 'is missing' });
    } else {
      const problem = await cmsProblem(readRegularFile(p7sPath), manifest, pinned.key);
      if (problem) d.push({ file: problem.startsWith('does not verify') ? blame(CMS_FILE) : CMS_FILE, message: `manifest.p7s ${problem}` });
    }
  }
  const keyFile = 'key' in pinned ? pinned.file : POLICY_FILE;
  return railOf(
    'signatures',
    `manifest.sig (Ed25519) and manifest.p7s (CMS, RSA signer certified by the operator key) verify over manifest.json with the key pinned in ${keyFile}`,
    d,
    codes,
  );
}
