// The signer certificate's binding to a token's signature (RFC 3161 §2.4.2, RFC 5816 §2.2.1): the
// signed SigningCertificate (ESSCertID, RFC 2634 §5.4) or SigningCertificateV2 (ESSCertIDv2, RFC
// 5035 §3) attribute names the certificate by hash (and issuerSerial). pkijs does not check it.
// Pure; decisions remembered in the TSA memo (rfc3161.ts).
import { createHash } from 'node:crypto';
import { asn1js, pkijs } from '../../vendor/pki.ts';
import { HASH_ALGORITHMS } from '../../formats/hash-algorithms.ts';
import { bytesEqual, type SignerInfo } from './cms-signer-info.ts';
import { bytesKey, remembered, type CarriedCertificate, type TsaMemo } from './token.ts';

const OID = {
  signingCertificate: '1.2.840.113549.1.9.16.2.12', // ESSCertID, RFC 2634 §5.4
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47', // ESSCertIDv2, RFC 5035 §3, RFC 5816
  sha1: '1.3.14.3.2.26',
  sha256: '2.16.840.1.101.3.4.2.1',
} as const;

const HASHES = HASH_ALGORITHMS;

/**
 * RFC 3161 §2.4.2 / RFC 5816 §2.2.1: a signed SigningCertificate (ESSCertID, SHA-1) or
 * SigningCertificateV2 (ESSCertIDv2, hashAlgorithm DEFAULT SHA-256) attribute whose first entry
 * is the hash of the signer certificate, with a matching issuerSerial when one is given. Every
 * such attribute present must bind; at least one must be present.
 */
export function signerCertificateBound(signerInfo: SignerInfo, signer: CarriedCertificate, memo: TsaMemo): boolean {
  const attributes = (signerInfo.signedAttrs?.attributes ?? []).filter(
    (a) => a.type === OID.signingCertificate || a.type === OID.signingCertificateV2,
  );
  if (attributes.length === 0) return false;
  // The outcome depends only on the attribute's bytes and the signer certificate, the same in every
  // token of a TSA: decided once (its issuer name comparison costs an asn1js parse).
  return attributes.every(
    (attribute) =>
      attribute.values.length === 1 &&
      remembered(memo.decisions, `ess/${signer.sha256}/${attribute.type}/${bytesKey(attribute.values[0]!)}`, () => {
        try {
          return essAttributeBinds(attribute.type, asn1js.fromBER(attribute.values[0]!.slice()).result, signer);
        } catch {
          return false; // an attribute pkijs cannot read binds nothing
        }
      }),
  );
}

function essAttributeBinds(type: string, value: asn1js.AsnType, signer: CarriedCertificate): boolean {
  const first = firstEssCertId(value, type === OID.signingCertificateV2);
  if (!first) return false;
  const hash = HASHES[first.hashOid];
  if (!hash) return false;
  if (!bytesEqual(createHash(hash.node).update(signer.der).digest(), first.certHash)) return false;
  return first.issuerSerial === undefined || issuerSerialMatches(first.issuerSerial, signer.cert);
}

interface EssCertId {
  hashOid: string;
  certHash: Uint8Array;
  issuerSerial?: asn1js.Sequence;
}

/** SigningCertificate(V2) ::= SEQUENCE { certs SEQUENCE OF ESSCertID(v2), policies OPTIONAL }. */
function firstEssCertId(value: unknown, v2: boolean): EssCertId | undefined {
  if (!(value instanceof asn1js.Sequence)) return undefined;
  const certs = value.valueBlock.value[0];
  if (!(certs instanceof asn1js.Sequence)) return undefined;
  const first = certs.valueBlock.value[0];
  if (!(first instanceof asn1js.Sequence)) return undefined;
  const fields = [...first.valueBlock.value];
  let hashOid: string = OID.sha1;
  if (v2) {
    hashOid = OID.sha256;
    if (fields[0] instanceof asn1js.Sequence) {
      hashOid = new pkijs.AlgorithmIdentifier({ schema: fields.shift() }).algorithmId;
    }
  }
  const certHash = fields.shift();
  if (!(certHash instanceof asn1js.OctetString)) return undefined;
  const issuerSerial = fields.shift();
  if (issuerSerial !== undefined && !(issuerSerial instanceof asn1js.Sequence)) return undefined;
  return issuerSerial === undefined
    ? { hashOid, certHash: certHash.valueBlock.valueHexView }
    : { hashOid, certHash: certHash.valueBlock.valueHexView, issuerSerial };
}

/**
 * IssuerSerial ::= SEQUENCE { issuer GeneralNames, serialNumber, issuerUID OPTIONAL }: serial
 * equal, and a directoryName [4] among the names equal to the signer's issuer. Read by hand:
 * pkijs's IssuerSerial/GeneralNames parsers cost more than the rest of this check.
 */
function issuerSerialMatches(schema: asn1js.Sequence, signerCert: pkijs.Certificate): boolean {
  const [names, serial] = schema.valueBlock.value;
  if (!(names instanceof asn1js.Sequence) || !(serial instanceof asn1js.Integer)) return false;
  if (!serial.isEqual(signerCert.serialNumber)) return false;
  return names.valueBlock.value.some((name) => {
    if (!(name instanceof asn1js.Constructed) || name.idBlock.tagClass !== 3 || name.idBlock.tagNumber !== 4) return false;
    try {
      return new pkijs.RelativeDistinguishedNames({ schema: name.valueBlock.value[0] }).isEqual(signerCert.issuer);
    } catch {
      return false;
    }
  });
}
