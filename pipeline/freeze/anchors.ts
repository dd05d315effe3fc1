// Anchors: RFC 3161 tokens over freeze_digest, stored in preregistration/anchors/ as
// <witness>.tsr with <witness>.json beside it (who, where, when and how it was retrieved).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyTimestampToken, type TsaTrust } from '../evidence/timestamp/index.ts';
import { readJsonFile } from '../io/json-files.ts';
import { writeFileAtomic } from '../io/atomic.ts';
import type { ReasonCode } from '../reasons.ts';
import { listFiles } from '../study/freeze-record.ts';

export interface AnchorMetadata {
  format: 'prereg.anchor/1';
  witness: string;
  url: string | null;
  retrieved_via: 'http' | 'import';
  retrieved_at: string;
  freeze_digest: string;
  tsr_sha256: string;
}

export interface AnchorVerification {
  witness: string;
  file: string;
  ok: boolean;
  codes: ReasonCode[];
  gen_time: string | null;
  signer: string | null;
  signer_cert_sha256: string | null;
  url: string | null;
  retrieved_via: string | null;
  retrieved_at: string | null;
}

export function writeAnchor(dir: string, tsr: Uint8Array, meta: AnchorMetadata): void {
  // The token first: metadata without its token would be a claim without a witness.
  writeFileAtomic(join(dir, `${meta.witness}.tsr`), tsr);
  writeFileAtomic(join(dir, `${meta.witness}.json`), `${JSON.stringify(meta, null, 2)}\n`);
}

export function listAnchorTokens(dir: string): string[] {
  return listFiles(dir, '.tsr');
}

/** The imprint of an anchor is SHA-256 over the 32 bytes of freeze_digest (SPEC §4.4). */
export async function verifyAnchor(
  dir: string,
  file: string,
  freezeDigestHex: string,
  trust: TsaTrust,
  opensAt: string,
): Promise<AnchorVerification> {
  const witness = file.replace(/\.tsr$/, '');
  let meta: Partial<AnchorMetadata> = {};
  try {
    meta = readJsonFile(join(dir, `${witness}.json`)) as Partial<AnchorMetadata>;
  } catch {
    // Metadata is descriptive; a token without it still verifies or fails on its own.
  }
  const result = await verifyTimestampToken(readFileSync(join(dir, file)), Buffer.from(freezeDigestHex, 'hex'), trust);
  const codes: ReasonCode[] = [...result.codes];
  if (result.genTime !== undefined && Date.parse(result.genTime) >= Date.parse(opensAt)) codes.push('ANCHOR_AFTER_OPEN');
  return {
    witness,
    file: `preregistration/anchors/${file}`,
    ok: codes.length === 0,
    codes,
    gen_time: result.genTime ?? null,
    signer: result.signerSubject ?? result.tsaName ?? null,
    signer_cert_sha256: result.signerCertSha256 ?? null,
    url: typeof meta.url === 'string' ? meta.url : null,
    retrieved_via: typeof meta.retrieved_via === 'string' ? meta.retrieved_via : null,
    retrieved_at: typeof meta.retrieved_at === 'string' ? meta.retrieved_at : null,
  };
}

/** Witnesses are independent when their signing certificates differ. */
export function countIndependentWitnesses(anchors: readonly AnchorVerification[]): number {
  return new Set(anchors.filter((a) => a.ok).map((a) => a.signer_cert_sha256)).size;
}
