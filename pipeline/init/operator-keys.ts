// The operator's key material for a new study (docs/outputs.md, "Signatures"): an Ed25519 key
// whose public half the trust policy pins (manifest.sig), and, because OpenSSL 3.0 and pkijs cannot
// do CMS with an Ed25519 signer, an RSA key for manifest.p7s with a certificate issued by the
// Ed25519 key, followed by the Ed25519 key's self-signed certificate (the CA `openssl cms -verify
// -CAfile` trusts). Certificates are built with pkijs and signed with node:crypto's Ed25519 (init/certificate.ts).
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { issueCertificate, OID_EMAIL_PROTECTION, pem } from './certificate.ts';

export interface OperatorKeyFiles {
  /** Ed25519 private key, PKCS#8 PEM: signs manifest.sig. Private: never in the study. */
  operatorKey: string;
  /** Its public half, SPKI PEM: what preregistration/trust/ pins. */
  operatorPublicKey: string;
  /** RSA-2048 private key, PKCS#8 PEM: signs manifest.p7s. Private. */
  cmsKey: string;
  /** The CMS signer's certificate (issued by the operator key), then the operator's self-signed certificate. */
  cmsCert: string;
}

function certificate(subject: string, issuer: string, subjectKey: KeyObject, issuerKey: KeyObject, ca: boolean): Uint8Array {
  return issueCertificate({
    subject,
    issuer,
    subjectKey,
    issuerKey,
    ca,
    ...(ca ? {} : { extendedKeyUsage: { purpose: OID_EMAIL_PROTECTION, critical: false } }),
  });
}

/** Fresh keys and certificates for the operator of `studyId`. */
export function generateOperatorKeys(studyId: string): OperatorKeyFiles {
  const operator = generateKeyPairSync('ed25519');
  const cms = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const operatorName = `${studyId} operator`;
  const operatorCert = certificate(operatorName, operatorName, operator.publicKey, operator.privateKey, true);
  const cmsCert = certificate(`${studyId} operator CMS signer`, operatorName, cms.publicKey, operator.privateKey, false);
  return {
    operatorKey: operator.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    operatorPublicKey: operator.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    cmsKey: cms.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    cmsCert: pem('CERTIFICATE', cmsCert) + pem('CERTIFICATE', operatorCert),
  };
}
