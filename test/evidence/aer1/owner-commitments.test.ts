// Whose commitment counts (SPEC §12.3): a matching commitment published before closes_at anchors
// the timeline whoever published it; only one binding the owner (signed by one of its agent keys,
// or received from it through intake: inputs/commitments/<owner>.jsonl) can make
// COMMITMENT_CONFLICT; another that differs is COMMITMENT_FOREIGN; a signature no registered key
// verifies is COMMITMENT_SIGNATURE_INVALID. One row per rule, a passing and a failing case.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decideSigners,
  indexCommitments,
  readCommitmentLine,
  readCommitmentText,
  verifyTimeline,
  type AgentKeyring,
  type CommitmentLine,
} from '../../../pipeline/evidence/aer1/index.ts';
import { signCanonical } from '../../../pipeline/evidence/intake/ed25519.ts';
import { canonicalJson, parseJson } from '../../../pipeline/formats/canonical-json.ts';
import { sha256Hex } from '../../../pipeline/formats/hash.ts';
import { buildTimeline, sampleReceipts } from '../../support/aer1-builder.ts';
import { CLOSES_AT } from './helpers.ts';

const OWNER = 'sys-owner';
const RIVAL = 'sys-rival';
const key = (): KeyObject => generateKeyPairSync('ed25519').privateKey;
const owner = key(),
  rival = key(),
  stranger = key();
const KEYRING: AgentKeyring = [
  { system_id: OWNER, key: owner },
  { system_id: RIVAL, key: rival },
];

const { timeline, commitment } = buildTimeline({ job_id: 'job-1', receipts: sampleReceipts(8, 'job-1') });
/** The same job committed to a cut timeline (3 entries, another final digest). */
const cut = buildTimeline({ job_id: 'job-1', receipts: sampleReceipts(3, 'job-1') }).commitment;
const signedBy = (k: KeyObject, c: object) => ({ ...c, signature: signCanonical(k, c) });

/** A line: a commitment object, and the intake file it came from (its system), if any. */
type Line = { c: object; intake?: string };

function lines(ls: readonly Line[]): CommitmentLine[] {
  return ls.map((l, i) => {
    const text = canonicalJson(l.c);
    const file = l.intake === undefined ? 'inputs/commitments.jsonl' : `inputs/commitments/${l.intake}.jsonl`;
    return readCommitmentText(text, {
      file,
      line: i + 1,
      byte_offset: 0,
      line_sha256: sha256Hex(text),
      ...(l.intake !== undefined ? { intake_owner: l.intake } : {}),
    });
  });
}
const verify = (ls: readonly Line[], who: string | null = OWNER, keys: AgentKeyring = KEYRING) =>
  verifyTimeline(timeline, indexCommitments(lines(ls), keys), CLOSES_AT, who);

describe('whose commitment counts: one row per rule', () => {
  it.each([
    ['an unsigned matching commitment (the AER-1 -09 shape) anchors', [{ c: commitment }], 'ANCHORED', []],
    ['a matching commitment signed by the owner anchors', [{ c: signedBy(owner, commitment) }], 'ANCHORED', []],
    ['a matching commitment signed by another system still anchors', [{ c: signedBy(rival, commitment) }], 'ANCHORED', []],
    [
      'an unsigned differing commitment beside the matching one is foreign, the timeline anchored',
      [{ c: commitment }, { c: cut }],
      'ANCHORED',
      ['COMMITMENT_FOREIGN'],
    ],
    [
      'a differing one signed by another registered system is foreign',
      [{ c: commitment }, { c: signedBy(rival, cut) }],
      'ANCHORED',
      ['COMMITMENT_FOREIGN'],
    ],
    [
      "a differing one from another system's intake file is foreign",
      [{ c: commitment }, { c: cut, intake: RIVAL }],
      'ANCHORED',
      ['COMMITMENT_FOREIGN'],
    ],
    [
      'a differing one signed by the owner conflicts',
      [{ c: commitment }, { c: signedBy(owner, cut) }],
      'UNANCHORED',
      ['COMMITMENT_CONFLICT'],
    ],
    [
      "a differing one from the owner's intake file conflicts",
      [{ c: commitment }, { c: cut, intake: OWNER }],
      'UNANCHORED',
      ['COMMITMENT_CONFLICT'],
    ],
    [
      "the owner's own matching and differing, both signed: conflict",
      [{ c: signedBy(owner, commitment) }, { c: signedBy(owner, cut) }],
      'UNANCHORED',
      ['COMMITMENT_CONFLICT'],
    ],
    [
      'a differing one signed by a key nobody registered: invalid signature, read as unsigned, foreign',
      [{ c: commitment }, { c: signedBy(stranger, cut) }],
      'ANCHORED',
      ['COMMITMENT_FOREIGN', 'COMMITMENT_SIGNATURE_INVALID'],
    ],
    [
      "the owner's signature over other bytes: invalid, so it does not conflict",
      [{ c: commitment }, { c: { ...signedBy(owner, commitment), final_entry_digest: cut.final_entry_digest } }],
      'ANCHORED',
      ['COMMITMENT_FOREIGN', 'COMMITMENT_SIGNATURE_INVALID'],
    ],
    [
      'a matching commitment with an invalid signature still anchors',
      [{ c: { ...commitment, signature: signCanonical(owner, cut) } }],
      'ANCHORED',
      ['COMMITMENT_SIGNATURE_INVALID'],
    ],
    [
      "the owner's differing one late does not conflict",
      [{ c: commitment }, { c: signedBy(owner, { ...cut, published_at: '2026-12-01T00:00:00Z' }) }],
      'ANCHORED',
      [],
    ],
    [
      "none matches: the best candidate's mismatch codes, as before (only the owner's)",
      [{ c: signedBy(owner, cut) }],
      'UNANCHORED',
      ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH'],
    ],
    [
      'none matches, a foreign one is the best candidate: its mismatch codes',
      [{ c: cut }],
      'UNANCHORED',
      ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH'],
    ],
  ] as const)('%s', (_, ls, status, reason_codes) => {
    const r = verify(ls);
    expect({ status: r.status, reason_codes: r.reason_codes }).toEqual({ status, reason_codes });
    expect(r.informational_codes).toEqual(reason_codes.filter((c) => c === 'COMMITMENT_FOREIGN' || c === 'COMMITMENT_SIGNATURE_INVALID'));
  });

  it('with no agent keys and no intake files, nothing binds an owner: no commitment can conflict', () => {
    const r = verify([{ c: commitment }, { c: signedBy(owner, cut) }], OWNER, []);
    expect(r).toMatchObject({ status: 'ANCHORED', reason_codes: ['COMMITMENT_FOREIGN', 'COMMITMENT_SIGNATURE_INVALID'] });
  });

  it('outside a study (no owner), the owner-signed differing commitment is foreign', () => {
    expect(verify([{ c: commitment }, { c: signedBy(owner, cut) }], null)).toMatchObject({
      status: 'ANCHORED',
      reason_codes: ['COMMITMENT_FOREIGN'],
    });
  });

  it('the problems name the foreign line and say it cancels nothing', () => {
    const r = verify([{ c: commitment }, { c: cut }]);
    expect(r.problems.join('\n')).toMatch(/COMMITMENT_FOREIGN inputs\/commitments.jsonl:2: .*cancels nothing/);
  });
});

describe('the signature member, as the reader reads it', () => {
  const AT = { file: 'c.jsonl', line: 1, byte_offset: 0, line_sha256: '0'.repeat(64) };
  it('a signed line is well-formed and carries the canonical commitment without its signature', () => {
    const line = readCommitmentLine(parseJson(canonicalJson(signedBy(owner, commitment))), AT);
    expect(line).toMatchObject({ ok: true, commitment });
    expect(line.ok && line.signed?.payload).toBe(canonicalJson(commitment));
  });
  it.each([
    ['a number', 7],
    ['an empty string', ''],
    ['null', null],
  ])('a signature that is %s is malformed', (_, signature) => {
    expect(readCommitmentLine(parseJson(canonicalJson({ ...commitment, signature })), AT)).toMatchObject({ ok: false, job_id: 'job-1' });
  });
});

describe('signers decided once (decideSigners), as the verify stage hands them to its workers', () => {
  it('a decided signer is the one the keys give, and a worker that holds no key judges the same', () => {
    const ls = lines([{ c: commitment }, { c: signedBy(owner, cut) }, { c: signedBy(stranger, cut) }]);
    const decided = decideSigners(ls, KEYRING);
    expect(decided.map((l) => (l.ok ? (l.signer ?? null) : null))).toEqual([
      null,
      { kind: 'signed', system_id: OWNER },
      { kind: 'invalid' },
    ]);
    // With the signers decided, no key is needed: the owner's signed cut timeline still conflicts.
    const r = verifyTimeline(timeline, indexCommitments(decided, []), CLOSES_AT, OWNER);
    expect(r.status).toBe('UNANCHORED');
    expect(r.reason_codes).toContain('COMMITMENT_CONFLICT');
    // Undecided and keyless, the same lines bind nobody: the decision is what carries the keys' verdict.
    expect(verifyTimeline(timeline, indexCommitments(ls, []), CLOSES_AT, OWNER).status).toBe('ANCHORED');
  });

  it('no line read from a file carries a signer: a "signer" member is an unknown member, malformed', () => {
    const AT = { file: 'c.jsonl', line: 1, byte_offset: 0, line_sha256: '0'.repeat(64) };
    const forged = readCommitmentLine(parseJson(canonicalJson({ ...cut, signer: { kind: 'signed', system_id: OWNER } })), AT);
    expect(forged).toMatchObject({ ok: false });
    expect(lines([{ c: signedBy(owner, commitment) }]).every((l) => !l.ok || l.signer === undefined)).toBe(true);
  });
});
