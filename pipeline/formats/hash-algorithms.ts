// Hash algorithms by their OID (NIST CSOR, RFC 3279 for SHA-1), as tokens and CMS name them: the
// display name and node:crypto's name.
export const HASH_ALGORITHMS: Readonly<Record<string, { name: string; node: string }>> = {
  '1.3.14.3.2.26': { name: 'SHA-1', node: 'sha1' },
  '2.16.840.1.101.3.4.2.1': { name: 'SHA-256', node: 'sha256' },
  '2.16.840.1.101.3.4.2.2': { name: 'SHA-384', node: 'sha384' },
  '2.16.840.1.101.3.4.2.3': { name: 'SHA-512', node: 'sha512' },
};
