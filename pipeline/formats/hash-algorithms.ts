// Hash algorithms by their OID (NIST CSOR, RFC 3279 for SHA-1), as tokens and CMS name them: the
// display name and node:crypto's name.
export const HASH_ALGORITHMS: Readonly<Record<string, { name: string; node: string }>> = {
  '1.3.14.3.2.26': { name: 'SHA-1', node: 'sha1' },
  '2.16.840.1.101.3.4.2.1': { name: 'SHA-256', node: 'sha256' },
  '2.16.840.1.101.3.4.2.2': { name: 'SHA-384', node: 'sha384' },
  '2.16.840.1.101.3.4.2.3': { name: 'SHA-512', node: 'sha512' },
};

/** The SHA-2 algorithms accepted wherever a hash binds evidence; SHA-1 is known (to be named) but weak. */
export const SHA2_HASHES = ['sha256', 'sha384', 'sha512'] as const;
export type Sha2Hash = (typeof SHA2_HASHES)[number];

export function isSha2(node: string): node is Sha2Hash {
  return (SHA2_HASHES as readonly string[]).includes(node);
}
