// The operator's Ed25519 public key, pinned by the study's trust policy (operator_public_key): the
// key emit signs manifest.sig with, the issuer of the CMS signer's certificate, and the key an
// audit verifies both with. One rule for what "pinned" means, for freeze, run, emit and audit.
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { TrustPolicy } from '../formats/trust-policy.ts';
import { readText } from '../io/json-files.ts';
import { trustPath } from '../io/trust-files.ts';
import { PreregError } from '../reasons.ts';

export interface PinnedOperatorKey {
  key: KeyObject;
  /** The key's file, from the study root (preregistration/trust/<operator_public_key>). */
  file: string;
}

const POLICY = 'preregistration/trust/policy.json';
const FIELD = '/operator_public_key';

/**
 * The pinned key, or OPERATOR_KEY_UNPINNED when the policy names none or names a file that is not
 * an Ed25519 public key (PEM); a path outside the trust directory and a missing file are refused
 * as any file the policy names (TRUST_POLICY_INVALID, FILE_NOT_FOUND).
 */
export function pinnedOperatorKey(trustDir: string, policy: TrustPolicy): PinnedOperatorKey {
  const named = policy.operator_public_key;
  if (named === undefined || named === '') {
    throw new PreregError('OPERATOR_KEY_UNPINNED', `${POLICY} pins no operator_public_key: no output can be signed or checked`, { file: POLICY, field: FIELD });
  }
  const file = `preregistration/trust/${named}`;
  const pem = readText(trustPath(trustDir, named));
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (err) {
    throw new PreregError('OPERATOR_KEY_UNPINNED', `${file} is not a PEM public key: ${(err as Error).message}`, { file, field: FIELD });
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new PreregError('OPERATOR_KEY_UNPINNED', `${file} is ${key.asymmetricKeyType ?? 'an unknown'} key, not Ed25519`, { file, field: FIELD });
  }
  return { key, file };
}
