// Which request may follow which (docs/intake.md, "Versions"), on requests built here: version 1
// superseding 64 zeros first, then each version one more naming the digest of the one before —
// the digest written out by hand (SHA-256 of the request without `file`, members sorted: for
// ASCII strings and integers canonical JSON is JSON.stringify's).
import { createHash, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { agentKeyText, signCanonical } from '../../../pipeline/evidence/intake/ed25519.ts';
import {
  INTAKE_REQUEST_FORMAT,
  INTAKE_REQUEST_FORMAT_V1,
  requestPayload,
  type IntakeEntry,
  type IntakeRequest,
} from '../../../pipeline/evidence/intake/records.ts';
import { chainProblems, entryHoldingOrSuperseding, successorProblem } from '../../../pipeline/evidence/intake/request-chain.ts';

const key = generateKeyPairSync('ed25519').privateKey;
const ZEROS = '0'.repeat(64);

function byHand(r: IntakeRequest): string {
  const members = Object.entries(r)
    .filter(([k]) => k !== 'file')
    .sort(([x], [y]) => (x < y ? -1 : 1));
  return createHash('sha256')
    .update(JSON.stringify(Object.fromEntries(members)))
    .digest('hex');
}

function request(version: number | undefined, supersedes: string | undefined, bytes = version ?? 0, systemId = 'sys-a'): IntakeRequest {
  const versioned = version === undefined ? {} : { version, supersedes };
  const unsigned = {
    study_id: 's',
    system_id: systemId,
    freeze_digest: 'f'.repeat(64),
    kind: 'submissions' as const,
    ...versioned,
    sha256: 'a'.repeat(64),
    bytes,
  };
  return {
    format: version === undefined ? INTAKE_REQUEST_FORMAT_V1 : INTAKE_REQUEST_FORMAT,
    ...unsigned,
    file: 'x.jsonl',
    public_key: agentKeyText(key),
    signature: signCanonical(key, requestPayload(unsigned)),
  };
}
const entries = (...rs: IntakeRequest[]): IntakeEntry[] =>
  rs.map((r, seq) => ({ seq, prev: ZEROS, request: r, lines_read: 0, lines_rejected: 0, token: 'AA==' }));

describe('successors', () => {
  const v1 = request(1, ZEROS);
  const v2 = request(2, byHand(v1));
  const v3 = request(3, byHand(v2));

  it('v1 first, then each version naming the one before', () => {
    expect(successorProblem(undefined, v1)).toBeNull();
    expect(successorProblem(v1, v2)).toBeNull();
    expect(chainProblems(entries(v1, v2, v3))).toEqual([]);
    // Another system's chain is its own.
    expect(chainProblems(entries(v1, request(1, ZEROS, 7, 'sys-b'), v2))).toEqual([]);
  });

  it('a replay, a repeat, a skipped version and a wrong digest are not successors', () => {
    expect(chainProblems(entries(v1, v2, v1)).map(([i]) => i)).toEqual([2]);
    expect(chainProblems(entries(v1, v2, v2)).map(([i]) => i)).toEqual([2]);
    expect(chainProblems(entries(v1, v3)).map(([i]) => i)).toEqual([1]);
    expect(successorProblem(v1, request(2, ZEROS))).toContain(`only version 2 superseding ${byHand(v1)} follows it`);
    expect(successorProblem(undefined, v2)).toContain('no request of it was taken in before');
  });

  it('/1 requests of an old log: unordered among themselves, never after a versioned one; a /2 follows one as version 1 naming it', () => {
    const old = request(undefined, undefined, 5);
    expect(chainProblems(entries(old, old))).toEqual([]);
    expect(chainProblems(entries(v1, old)).map(([i]) => i)).toEqual([1]);
    expect(successorProblem(old, request(1, byHand(old)))).toBeNull();
    expect(successorProblem(old, v1)).not.toBeNull();
  });

  it('a request is answered by itself or any later version in the log', () => {
    expect(entryHoldingOrSuperseding(entries(v1), v2)).toBeUndefined();
    expect(entryHoldingOrSuperseding(entries(v1, v2), v2)?.seq).toBe(1);
    expect(entryHoldingOrSuperseding(entries(v1, v2, v3), v2)?.seq).toBe(1);
    // The participant's own fork: another version 2 was taken in.
    expect(entryHoldingOrSuperseding(entries(v1, request(2, byHand(v1), 99)), v2)?.seq).toBe(1);
    expect(entryHoldingOrSuperseding(entries(request(1, ZEROS, 1, 'sys-b'), request(2, ZEROS, 2, 'sys-b')), v2)).toBeUndefined();
  });
});
