// RFC 3161 tokens for intake entries and the seal, from the study's TSAs (or --tsa overrides)
// through the project's TSA client (retries, then the next TSA). A token counts only once it
// verifies over the digest against the study's pinned roots; its genTime is then the time.
import { verifyTimestampToken, type TsaTrust } from '../evidence/timestamp/index.ts';
import { requestTimestamp, TsaRequestError } from '../net/tsa-client.ts';
import { PreregError } from '../reasons.ts';

export interface TsaEndpoint {
  name: string;
  url: string;
}

export interface ObtainedToken {
  witness: string;
  url: string;
  tsr: Uint8Array;
  genTime: string;
}

export interface TokenOptions {
  timeoutMs: number;
  retries: number;
  progress: (message: string) => void;
  /** 'first': stop at the first TSA whose token verifies (an intake entry); 'all': ask every TSA (the seal). */
  want: 'first' | 'all';
}

/** Tokens over `digest` (32 bytes); TSA_UNAVAILABLE, nothing obtained, when none verifies. */
export async function obtainTokens(
  tsas: readonly TsaEndpoint[],
  digest: Uint8Array,
  trust: TsaTrust,
  options: TokenOptions,
): Promise<ObtainedToken[]> {
  if (tsas.length === 0) throw new PreregError('TSA_UNAVAILABLE', 'no TSA configured in study.json anchors.tsas (or --tsa NAME=URL)');
  const got: ObtainedToken[] = [];
  const failed: string[] = [];
  for (const tsa of tsas) {
    options.progress(`asking ${tsa.name} (${tsa.url})…`);
    try {
      const tsr = await requestTimestamp(tsa.url, digest, {
        timeoutMs: options.timeoutMs,
        retries: options.retries,
        onRetry: (n, err) => options.progress(`${tsa.name}: attempt ${n} failed (${err.message}), retrying…`),
      });
      const check = await verifyTimestampToken(tsr, digest, trust);
      if (!check.ok || check.genTime === undefined) {
        failed.push(`${tsa.name}: token does not verify (${check.reason_codes.join(', ')})`);
        continue;
      }
      got.push({ witness: tsa.name, url: tsa.url, tsr, genTime: check.genTime });
      if (options.want === 'first') break;
    } catch (err) {
      if (!(err instanceof TsaRequestError)) throw err;
      failed.push(`${tsa.name}: ${err.message}`);
    }
  }
  if (got.length === 0)
    throw new PreregError('TSA_UNAVAILABLE', `no TSA gave a valid token; nothing was written. ${failed.join('; ')}`, { failed });
  return got;
}
