// The seal's anchors: RFC 3161 tokens over seal_digest in inputs/anchors/, laid out as the
// freeze's (preregistration/anchors/): <witness>.tsr with <witness>.json beside it.
import { join } from 'node:path';
import { sha256Hex } from '../formats/hash.ts';
import { writeFileAtomic } from '../io/atomic.ts';

export const SEAL_ANCHOR_FORMAT = 'prereg.seal-anchor/1';

export interface SealAnchorMetadata {
  format: typeof SEAL_ANCHOR_FORMAT;
  witness: string;
  url: string | null;
  retrieved_via: 'http';
  retrieved_at: string;
  seal_digest: string;
  tsr_sha256: string;
}

export function writeSealAnchor(
  dir: string,
  tsr: Uint8Array,
  witness: string,
  url: string,
  sealDigestHex: string,
  retrievedAt: string,
): void {
  const meta: SealAnchorMetadata = {
    format: SEAL_ANCHOR_FORMAT,
    witness,
    url,
    retrieved_via: 'http',
    retrieved_at: retrievedAt,
    seal_digest: sealDigestHex,
    tsr_sha256: sha256Hex(tsr),
  };
  // The token first: metadata without its token would be a claim without a witness.
  writeFileAtomic(join(dir, `${witness}.tsr`), tsr);
  writeFileAtomic(join(dir, `${witness}.json`), `${JSON.stringify(meta, null, 2)}\n`);
}
