// Whether a token answers a TimeStampReq, as RFC 3161 §2.4.2 requires of the requester and
// `openssl ts -verify -queryfile` checks it: the same message imprint (algorithm and bytes), the
// nonce when the request had one (a reply without it, or with another, is a replay or meant for
// someone else), and the policy when the request named one. Pure.
import type { TimestampRequest } from '../../formats/timestamp-request.ts';
import type { ReasonCode } from '../../reasons.ts';
import { bytesEqual } from './cms-signer-info.ts';
import type { TstInfo } from './tst-info.ts';
import { newMemo, parseToken } from './token.ts';

export interface RequestAnswer {
  imprint: boolean;
  /** null: the request had no nonce, nothing to compare. */
  nonce: boolean | null;
  /** null: the request named no policy. */
  policy: boolean | null;
}

export function answersRequest(tstInfo: TstInfo, request: TimestampRequest): RequestAnswer {
  return {
    imprint: tstInfo.imprintAlgorithm === request.imprintAlgorithm && bytesEqual(tstInfo.hashedMessage, request.hashedMessage),
    nonce: request.nonce === undefined ? null : tstInfo.nonce === request.nonce,
    policy: request.policy === undefined ? null : tstInfo.policy === request.policy,
  };
}

/**
 * What a TSA client must refuse before keeping a reply to `request`: the code and why, or null
 * when the reply answers it. A reply that holds no token (a rejection, bytes that do not parse)
 * is left to the token's verification, which reports it with its own code.
 */
export function replyRefusal(reply: Uint8Array, request: TimestampRequest): { code: ReasonCode; message: string } | null {
  const parsed = parseToken(reply, newMemo());
  if (parsed.kind !== 'token') return null;
  const tst = parsed.tstInfo;
  const answer = answersRequest(tst, request);
  if (!answer.imprint)
    return { code: 'TSA_IMPRINT_MISMATCH', message: "the reply's message imprint is not the one requested: it timestamps something else" };
  if (answer.nonce === false) {
    return {
      code: 'TSA_NONCE_MISMATCH',
      message: `the reply's nonce (${tst.nonce?.toString() ?? 'none'}) is not the request's (${request.nonce!.toString()}): a replayed or misdirected token`,
    };
  }
  if (answer.policy === false)
    return { code: 'TSA_POLICY_MISMATCH', message: `the reply's policy ${tst.policy} is not the requested ${request.policy!}` };
  return null;
}
