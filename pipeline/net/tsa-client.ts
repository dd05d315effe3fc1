// RFC 3161 over HTTP (RFC 3161 §3.4): POST application/timestamp-query, with retries. Every
// command that asks a TSA for a token (anchor, intake, seal) goes through here, and a reply is
// kept only once it answers the request sent (RFC 3161 §2.4.2: imprint, nonce, policy).
import { randomBytes } from 'node:crypto';
import pRetry, { AbortError } from 'p-retry';
import { replyRefusal } from '../evidence/timestamp/index.ts';
import { buildTimestampRequest, readTimestampRequest } from '../formats/timestamp-request.ts';

export interface TsaRequestOptions {
  timeoutMs: number;
  retries: number;
  /** Base delay between attempts; p-retry backs off from it. */
  minTimeoutMs?: number;
  onRetry?: (attempt: number, error: Error) => void;
}

/**
 * The largest TimeStampResp read: a token with its certificate chain is a few KiB. A TSA that
 * answers more (512 MiB made `anchor` peak at 1.66 GB) is cut off, not buffered.
 */
export const MAX_TSA_RESPONSE_BYTES = 1024 * 1024;

/** Reads the body up to the limit; a larger one is cancelled and refused (not retried). */
async function boundedBody(url: string, response: Response): Promise<Uint8Array> {
  const tooLarge = () =>
    new AbortError(
      new TsaRequestError(
        url,
        `TSA_RESPONSE_TOO_LARGE: the TSA answered more than ${MAX_TSA_RESPONSE_BYTES} bytes; a timestamp response is a few KiB`,
      ),
    );
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > MAX_TSA_RESPONSE_BYTES) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const parts: Uint8Array[] = [];
  let length = 0;
  if (response.body) {
    for await (const chunk of response.body) {
      length += chunk.length;
      if (length > MAX_TSA_RESPONSE_BYTES) {
        await response.body.cancel().catch(() => {});
        throw tooLarge();
      }
      parts.push(chunk);
    }
  }
  return new Uint8Array(Buffer.concat(parts));
}

export class TsaRequestError extends Error {
  constructor(
    readonly url: string,
    message: string,
  ) {
    super(message);
    this.name = 'TsaRequestError';
  }
}

/**
 * Returns the raw TimeStampResp bytes from one TSA, or throws TsaRequestError after the retries.
 * A token that does not answer this request (another imprint, another or no nonce — a replayed
 * or misdirected token) is refused, not retried: TSA_IMPRINT_MISMATCH / TSA_NONCE_MISMATCH in
 * the error's message. A reply holding no token is returned for the caller's verification to judge.
 */
export async function requestTimestamp(url: string, digest32: Uint8Array, options: TsaRequestOptions): Promise<Uint8Array> {
  const body = buildTimestampRequest(digest32, randomBytes(8));
  const sent = readTimestampRequest(body)!; // what was just built reads back
  const attempt = async (): Promise<Uint8Array> => {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
        body: new Blob([Buffer.from(body)]),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (err) {
      const cause = (err as Error).name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : (err as Error).message;
      throw new TsaRequestError(url, cause);
    }
    if (response.status >= 500 || response.status === 429) {
      throw new TsaRequestError(url, `HTTP ${response.status}`);
    }
    if (!response.ok) throw new AbortError(new TsaRequestError(url, `HTTP ${response.status} (not retried)`));
    const reply = await boundedBody(url, response);
    const refusal = replyRefusal(reply, sent);
    if (refusal !== null) throw new AbortError(new TsaRequestError(url, `${refusal.code}: ${refusal.message}; the reply was not kept`));
    return reply;
  };
  try {
    return await pRetry(attempt, {
      retries: options.retries,
      minTimeout: options.minTimeoutMs ?? 500,
      factor: 2,
      onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
        if (retriesLeft > 0) options.onRetry?.(attemptNumber, error);
      },
    });
  } catch (err) {
    if (err instanceof TsaRequestError) throw err;
    throw new TsaRequestError(url, (err as Error).message);
  }
}
