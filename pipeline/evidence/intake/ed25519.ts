// Ed25519 (RFC 8032) over canonical JSON (SPEC §3), for the keys of sealed intake (SPEC §12.2):
// the systems' agent keys (`ed25519:<base64url>`, as study.json registers them) and the
// operator's intake key (a PEM file pinned in the trust policy). Pure: keys and values in, bool out.
import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJsonBytes } from '../../formats/canonical-json.ts';
import { decodeEd25519PublicKey, importEd25519Raw } from '../trust/index.ts';

const SIGNATURE_B64URL = /^[A-Za-z0-9_-]{86}$/;

/** The key of `ed25519:<base64url 32 bytes>`, or undefined when the text is not one. */
export function agentPublicKey(text: string): KeyObject | undefined {
  const raw = decodeEd25519PublicKey(text);
  if (raw === undefined) return undefined;
  return importEd25519Raw(raw);
}

/** `ed25519:<base64url>` of an Ed25519 key (public, or the public half of a private one). */
export function agentKeyText(key: KeyObject): string {
  const jwk = (key.type === 'public' ? key : createPublicKey(key)).export({ format: 'jwk' });
  if (jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') throw new TypeError('agentKeyText: not an Ed25519 key');
  return `ed25519:${jwk.x}`;
}

/** Ed25519 signature (base64url, no padding) over the canonical JSON of `value`. */
export function signCanonical(privateKey: KeyObject, value: unknown): string {
  return sign(null, canonicalJsonBytes(value), privateKey).toString('base64url');
}

/** Whether `signature` (base64url) is `key`'s Ed25519 signature over the canonical JSON of `value`. */
export function verifyCanonical(key: KeyObject, value: unknown, signature: unknown): boolean {
  return verifySignedBytes(key, canonicalJsonBytes(value), signature);
}

/** Whether `signature` (base64url, 64 bytes, canonical encoding) is `key`'s Ed25519 signature over `data`. */
export function verifySignedBytes(key: KeyObject, data: Uint8Array, signature: unknown): boolean {
  if (!isSignatureText(signature)) return false;
  try {
    return verify(null, data, key, Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
}

/** An Ed25519 signature's text: base64url without padding of exactly 64 bytes, canonically encoded. */
export function isSignatureText(signature: unknown): signature is string {
  if (typeof signature !== 'string' || !SIGNATURE_B64URL.test(signature)) return false;
  const bytes = Buffer.from(signature, 'base64url');
  return bytes.length === 64 && bytes.toString('base64url') === signature;
}

/** The same public key (compared as SPKI DER). */
export function sameKey(a: KeyObject, b: KeyObject): boolean {
  const spki = (k: KeyObject) => (k.type === 'public' ? k : createPublicKey(k)).export({ format: 'der', type: 'spki' });
  return spki(a).equals(spki(b));
}
