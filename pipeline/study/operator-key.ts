// The operator's Ed25519 public keys, pinned by the study's trust policy: operator_public_key, the
// key emit signs manifest.sig with, the issuer of the CMS signer's certificate and the key an
// audit verifies both with; and the intake key that signs receipts (intake_public_key, else the
// operator key). One rule for what "pinned" means, for freeze, run, emit, intake and audit.
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { TrustPolicy } from '../formats/trust-policy.ts';
import { readText } from '../io/json-files.ts';
import { trustPath } from '../io/trust-files.ts';
import { PreregError } from '../reasons.ts';

export interface PinnedOperatorKey {
  key: KeyObject;
  /** The key's file, from the study root (preregistration/trust/<the policy's name for it>). */
  file: string;
}

type PinnedMember = 'operator_public_key' | 'intake_public_key';
const POLICY = 'preregistration/trust/policy.json';

/**
 * The key operator_public_key pins, or OPERATOR_KEY_UNPINNED when the policy names none or names a
 * file that is not an Ed25519 public key (PEM); a path outside the trust directory and a missing
 * file are refused as any file the policy names (TRUST_POLICY_INVALID, FILE_NOT_FOUND).
 */
export function pinnedOperatorKey(trustDir: string, policy: TrustPolicy, read: TrustFileReader = fileReader(trustDir)): PinnedOperatorKey {
  const named = policy.operator_public_key;
  if (named === undefined || named === '') {
    throw new PreregError('OPERATOR_KEY_UNPINNED', `${POLICY} pins no operator_public_key: no output can be signed or checked`, {
      file: POLICY,
      field: '/operator_public_key',
    });
  }
  return pinnedKey(read, named, 'operator_public_key', (file) => file);
}

/**
 * The key intake receipts are signed with: intake_public_key, else operator_public_key, under the
 * same rule; `where` names the member. `certificate` is the parsed intake_key_certificate file when
 * the policy names one (pipeline/intake/identity.ts judges it): TRUST_POLICY_INVALID when it is not JSON.
 */
export function pinnedIntakeKey(
  trustDir: string,
  policy: TrustPolicy,
  read: TrustFileReader = fileReader(trustDir),
): PinnedOperatorKey & { where: string; certificate?: unknown } {
  const member: PinnedMember = policy.intake_public_key !== undefined ? 'intake_public_key' : 'operator_public_key';
  const named = policy[member];
  if (named === undefined || named === '') {
    throw new PreregError(
      'OPERATOR_KEY_UNPINNED',
      `${POLICY} pins neither intake_public_key nor operator_public_key: no receipt could be checked`,
      { file: POLICY, field: `/${member}` },
    );
  }
  const where = (file: string) => `${file} (${member})`;
  const pinned = pinnedKey(read, named, member, where);
  const certificate =
    policy.intake_key_certificate === undefined ? {} : { certificate: parseCertificate(read, policy.intake_key_certificate) };
  return { ...pinned, where: where(pinned.file), ...certificate };
}

function parseCertificate(read: TrustFileReader, named: string): unknown {
  const file = `preregistration/trust/${named}`;
  try {
    return JSON.parse(read(named)) as unknown;
  } catch (err) {
    if (err instanceof PreregError && err.code !== 'JSON_NOT_UTF8') throw err;
    throw new PreregError('TRUST_POLICY_INVALID', `${file} (intake_key_certificate) is not a JSON certificate: ${(err as Error).message}`, {
      file,
      field: '/intake_key_certificate',
    });
  }
}

/** The text of a file the policy names (relative to the trust directory), refused as trustPath refuses a path outside it. */
export type TrustFileReader = (named: string) => string;

const fileReader =
  (trustDir: string): TrustFileReader =>
  (named) =>
    readText(trustPath(trustDir, named));

function pinnedKey(read: TrustFileReader, named: string, member: PinnedMember, shownAs: (file: string) => string): PinnedOperatorKey {
  const file = `preregistration/trust/${named}`;
  const unpinned = (why: string) => new PreregError('OPERATOR_KEY_UNPINNED', `${shownAs(file)} ${why}`, { file, field: `/${member}` });
  let pem: string;
  try {
    pem = read(named);
  } catch (err) {
    if (err instanceof PreregError && err.code === 'JSON_NOT_UTF8') throw unpinned('is not a PEM public key (not UTF-8)');
    throw err;
  }
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (err) {
    throw unpinned(`is not a PEM public key: ${(err as Error).message}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw unpinned(`is ${key.asymmetricKeyType ?? 'an unknown'} key, not Ed25519`);
  return { key, file };
}
