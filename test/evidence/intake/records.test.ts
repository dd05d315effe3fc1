// The pure parts of sealed intake (pipeline/evidence/intake/): what a digest covers, the chain
// rules of the log, the Merkle inclusion a receipt rests on, and the request's shape and owner.
import { createHash, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { agentKeyText, signCanonical, verifyCanonical } from '../../../pipeline/evidence/intake/ed25519.ts';
import { IntakeChain, latestEntries } from '../../../pipeline/evidence/intake/log.ts';
import {
  entryDigest,
  GENESIS_PREV,
  INTAKE_REQUEST_FORMAT,
  logAuditPath,
  logRoot,
  requestPayload,
  requestProblems,
  verifyLogInclusion,
  type IntakeEntry,
  type IntakeRequest,
} from '../../../pipeline/evidence/intake/records.ts';
import { requestRefusal } from '../../../pipeline/evidence/intake/requests.ts';

const a = generateKeyPairSync('ed25519').privateKey;
const b = generateKeyPairSync('ed25519').privateKey;
const FREEZE = 'f'.repeat(64);

function request(signer = a, systemId = 'sys-a', edit: Partial<IntakeRequest> = {}): IntakeRequest {
  const unsigned = {
    study_id: 's',
    system_id: systemId,
    freeze_digest: FREEZE,
    kind: 'submissions' as const,
    version: 1,
    supersedes: GENESIS_PREV,
    sha256: '0'.repeat(64),
    bytes: 0,
    ...edit,
  };
  return {
    format: INTAKE_REQUEST_FORMAT,
    ...unsigned,
    public_key: agentKeyText(signer),
    signature: signCanonical(signer, requestPayload(unsigned)),
  };
}
function chain(n: number): IntakeEntry[] {
  const out: IntakeEntry[] = [];
  for (let i = 0; i < n; i++) {
    const unsigned = {
      seq: i,
      prev: i === 0 ? GENESIS_PREV : entryDigest(out[i - 1]!),
      request: request(a, i % 2 === 0 ? 'sys-a' : 'sys-b'),
      lines_read: i,
      lines_rejected: 0,
    };
    out.push({ ...unsigned, token: 'AAAA' });
  }
  return out;
}
const registry = {
  study_id: 's',
  systems: [
    { system_id: 'sys-a', agent_keys: [{ public_key: agentKeyText(a) }] },
    { system_id: 'sys-b', agent_keys: [{ public_key: agentKeyText(b) }] },
  ],
};

describe('intake records', () => {
  it('the entry digest covers everything but the token', () => {
    const [e] = chain(1);
    expect(entryDigest({ ...e!, token: 'BBBB' })).toBe(entryDigest(e!));
    expect(entryDigest({ ...e!, lines_rejected: 1 })).not.toBe(entryDigest(e!));
  });

  it('signatures are over canonical JSON: key order does not matter, a changed value does', () => {
    const sig = signCanonical(a, { x: 1, y: 2 });
    expect(verifyCanonical(a, { y: 2, x: 1 }, sig)).toBe(true);
    expect(verifyCanonical(a, { x: 1, y: 3 }, sig)).toBe(false);
    expect(verifyCanonical(b, { x: 1, y: 2 }, sig)).toBe(false);
    expect(verifyCanonical(a, { x: 1, y: 2 }, `${sig}=`)).toBe(false);
  });

  /** The 1-based line of the first line the chain refuses, or null; every line after it is left unread. */
  const firstBadLine = (lines: string[]) => {
    const chainOf = new IntakeChain();
    const bad = lines.findIndex((l) => chainOf.add(l) !== null);
    return bad === -1 ? null : bad + 1;
  };
  const lines = (entries: IntakeEntry[]) => entries.map((e) => JSON.stringify(e));

  it.each([
    ['a chain as written', (e: IntakeEntry[]) => e, null],
    ['an entry removed from the middle', (e: IntakeEntry[]) => [e[0]!, e[2]!], 2],
    ['two entries swapped', (e: IntakeEntry[]) => [e[1]!, e[0]!, e[2]!], 1],
    ['an edited entry (the next prev no longer matches)', (e: IntakeEntry[]) => [{ ...e[0]!, lines_read: 9 }, e[1]!, e[2]!], 2],
  ])('IntakeChain: %s', (_name, edit, badLine) => {
    expect(firstBadLine(lines(edit(chain(3))))).toBe(badLine);
  });

  it('a duplicate key or an empty object is a bad line; the entries before it are kept', () => {
    const c = new IntakeChain();
    const [first, second] = lines(chain(2));
    expect(c.add(first!)).toBeNull();
    expect(c.add(second!.replace('"seq":1', '"seq":1,"seq":1'))).toContain('JSON_DUPLICATE_KEY');
    expect(c.add('{}')).not.toBeNull();
    expect(c.entries.map((e) => e.seq)).toEqual([0]);
    expect(c.digests).toEqual([entryDigest(chain(1)[0]!)]);
  });

  it('every entry has an audit path to the root; another digest or index has none', () => {
    const digests = chain(5).map(entryDigest);
    const root = logRoot(digests);
    digests.forEach((d, i) => {
      expect(verifyLogInclusion(d, i, 5, logAuditPath(digests, i), root)).toBe(true);
    });
    expect(verifyLogInclusion(digests[1]!, 2, 5, logAuditPath(digests, 2), root)).toBe(false);
    expect(verifyLogInclusion(digests[4]!, 4, 4, logAuditPath(digests, 4), logRoot(digests.slice(0, 4)))).toBe(false);
  });

  it('a digest that is not 64 hex digits is no leaf: bad hex read as no bytes would be the empty leaf, the same for every bad string', () => {
    const emptyLeaf = createHash('sha256')
      .update(Buffer.from([0]))
      .digest('hex'); // RFC 6962: SHA-256(0x00 ‖ nothing)
    for (const bad of ['z'.repeat(64), `${'a'.repeat(63)}`, ''])
      expect(verifyLogInclusion(bad, 0, 1, [], emptyLeaf), JSON.stringify(bad)).toBe(false);
    const [d] = chain(1).map(entryDigest);
    const shortLeaf = createHash('sha256')
      .update(Buffer.concat([Buffer.from([0]), Buffer.from(d!.slice(0, 62), 'hex')]))
      .digest('hex');
    expect(verifyLogInclusion(d!.slice(0, 62), 0, 1, [], shortLeaf)).toBe(false);
  });

  it('the latest entry of each system and kind counts', () => {
    expect(latestEntries(chain(5)).map((e) => e.seq)).toEqual([4, 3]);
  });

  it.each([
    ['its own key', request(a, 'sys-a'), null],
    ["another system's key", request(b, 'sys-a'), 'INTAKE_SIGNATURE_INVALID'],
    ['an unregistered key', request(generateKeyPairSync('ed25519').privateKey, 'sys-a'), 'INTAKE_SIGNATURE_INVALID'],
    ['an unregistered system', request(a, 'sys-z'), 'INTAKE_SIGNATURE_INVALID'],
    ['a signature over other bytes', { ...request(a, 'sys-a'), bytes: 1 }, 'INTAKE_SIGNATURE_INVALID'],
    ['another freeze', request(a, 'sys-a', { freeze_digest: 'e'.repeat(64) }), 'INTAKE_FREEZE_MISMATCH'],
    ['another study', request(a, 'sys-a', { study_id: 't' }), 'INTAKE_REQUEST_INVALID'],
  ])('requestRefusal: %s → %s', (_name, r, code) => {
    expect(requestRefusal(r, registry, FREEZE)?.code ?? null).toBe(code);
  });

  it('requestProblems: the schema refuses a file with a directory, a system_id that cannot name a file, an unknown member', () => {
    expect(requestProblems(request())).toEqual([]);
    expect(requestProblems({ ...request(), file: '../x.jsonl' })).not.toEqual([]);
    expect(requestProblems({ ...request(), system_id: '../x' })).not.toEqual([]);
    expect(requestProblems({ ...request(), extra: 1 })).not.toEqual([]);
  });
});
