// Transparency-log entries verified offline (SPEC §6.1): every rule with a passing case and a
// rejecting case, against entries of the small in-test log (test/support/tlog/), whose SETs and
// checkpoints the TEST-ONLY ECDSA P-256 log key signs. No mocks: every signature is real.
import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  loadTlogKeys,
  loadTlogSubmitterKeys,
  logIdOf,
  TLOG_CHECKS,
  TLOG_CODES,
  verifyTlogEntry,
  type TlogCheck,
  type CheckOutcome as TlogCheckOutcome,
  type TlogCode,
  type TlogEntry,
  type TlogKeyPolicy,
  type TlogMaterial,
  type TlogSubmitterKeyPolicy,
} from '../../../pipeline/evidence/tlog/index.ts';
import { canonicalJson, parseJson } from '../../../pipeline/formats/canonical-json.ts';
import { sha256Hex } from '../../../pipeline/formats/hash.ts';
import { PreregError, REASONS } from '../../../pipeline/reasons.ts';
import { hashedRekordBody, publicPem, testKeyPem, TestLog, type EntryOptions } from '../../support/tlog/test-log.ts';

const WITNESSED = sha256Hex('prereg tlog test: the hash a proof declares');
const OTHER = sha256Hex('prereg tlog test: the hash of another proof');
const seconds = (iso: string): number => Date.parse(iso) / 1000;
const T = seconds('2026-03-10T12:00:05Z');
const WINDOW = { valid_from: '2026-01-01T00:00:00Z', valid_until: '2027-01-01T00:00:00Z' };

// The issuer's log-signing key, pinned as a tlog_submitter_keys entry (Ed25519 here; ArkForge's
// real entries are ECDSA P-256, see real-witnesses.test.ts).
const issuer = createPrivateKey(testKeyPem('TEST-ONLY-arkforge-2026.key.pem'));
const issuerPublic = createPublicKey(testKeyPem('TEST-ONLY-arkforge-2026.pub.pem'));
const stranger = generateKeyPairSync('ed25519').privateKey; // submits, but is not pinned
const ecSubmitter = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey; // an ECDSA P-256 submitter, as ArkForge's
const otherLogKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey; // a log key nobody pinned

// The log: the entry of the witnessed hash, and the entries the rejecting cases point at.
const log = TestLog.withTestKey();
const goodBody = hashedRekordBody({ witnessedHashHex: WITNESSED, submitter: issuer });
for (let i = 0; i < 3; i++) log.append(hashedRekordBody({ witnessedHashHex: sha256Hex(`filler ${i}`), submitter: stranger }));
const GOOD = log.append(goodBody);
const OTHER_KIND = log.append(
  Buffer.from(
    canonicalJson({
      apiVersion: '0.0.1',
      kind: 'intoto',
      spec: { content: { hash: { algorithm: 'sha256', value: sha256Hex(WITNESSED) } } },
    }),
    'latin1',
  ),
);
const OTHER_ARTIFACT = log.append(hashedRekordBody({ witnessedHashHex: OTHER, submitter: issuer }));
// A common slip: logging SHA-256 of the 32 raw bytes instead of the hex string.
const RAW_DIGEST = log.append(
  hashedRekordBody({ witnessedHashHex: WITNESSED, submitter: issuer, loggedDigestHex: sha256Hex(Buffer.from(WITNESSED, 'hex')) }),
);
const UNPINNED_SUBMITTER = log.append(hashedRekordBody({ witnessedHashHex: WITNESSED, submitter: stranger }));
const BAD_SIGNATURE = log.append(
  hashedRekordBody({ witnessedHashHex: WITNESSED, submitter: issuer, signedBytes: Buffer.from(WITNESSED, 'hex') }),
);
const NOT_JSON = log.append(Buffer.from('{"kind": "hashedrekord"', 'latin1'));
const API_002 = log.append(hashedRekordBody({ witnessedHashHex: WITNESSED, submitter: issuer, apiVersion: '0.0.2' }));
const SIZE = log.size + 1; // the tree head the entries are proven in: 12 leaves
log.append(hashedRekordBody({ witnessedHashHex: sha256Hex('filler 11'), submitter: stranger }));
log.append(hashedRekordBody({ witnessedHashHex: sha256Hex('filler 12'), submitter: stranger })); // a later head: 13

const pinnedLog = { log_id: log.logId, public_key_file: 'TEST-ONLY-tlog.pub.pem', ...WINDOW };
const pinnedSubmitter: TlogSubmitterKeyPolicy = { key_id: 'arkforge-2026', public_key_file: 'TEST-ONLY-arkforge-2026.pub.pem', ...WINDOW };
const SUBMITTERS = loadTlogSubmitterKeys([pinnedSubmitter], [testKeyPem('TEST-ONLY-arkforge-2026.pub.pem')]);
const MATERIAL: TlogMaterial = {
  logKeys: loadTlogKeys([pinnedLog], [testKeyPem('TEST-ONLY-tlog.pub.pem')]),
  submitterKeys: SUBMITTERS,
};
/** The issuer's Ed25519 key and an ECDSA P-256 key, both pinned as submitters; the ECDSA one with no end. */
const BOTH_SUBMITTERS: TlogMaterial = {
  logKeys: MATERIAL.logKeys,
  submitterKeys: loadTlogSubmitterKeys(
    [pinnedSubmitter, { key_id: 'rekor-ec', public_key_file: 'ec.pub.pem', valid_from: WINDOW.valid_from, valid_until: null }],
    [testKeyPem('TEST-ONLY-arkforge-2026.pub.pem'), publicPem(ecSubmitter)],
  ),
};
/** The submitter pinned from 2019 with no end: the log key's window alone decides. */
const WIDE_SUBMITTER: TlogMaterial = {
  logKeys: MATERIAL.logKeys,
  submitterKeys: loadTlogSubmitterKeys(
    [{ ...pinnedSubmitter, valid_from: '2019-01-01T00:00:00Z', valid_until: null }],
    [testKeyPem('TEST-ONLY-arkforge-2026.pub.pem')],
  ),
};
/** The submitter pinned only from after the entries were integrated (T). */
const LATE_SUBMITTER: TlogMaterial = {
  logKeys: MATERIAL.logKeys,
  submitterKeys: loadTlogSubmitterKeys(
    [{ ...pinnedSubmitter, valid_from: '2026-03-11T00:00:00Z' }],
    [testKeyPem('TEST-ONLY-arkforge-2026.pub.pem')],
  ),
};

const entryAt = (index: number, o: Partial<EntryOptions> = {}): TlogEntry => log.entry(index, { integratedTime: T, treeSize: SIZE, ...o });
const mutate = (entry: TlogEntry, change: (e: TlogEntry) => void): TlogEntry => {
  const copy = structuredClone(entry);
  change(copy);
  return copy;
};
const proofOf = (e: TlogEntry) => e.verification.inclusionProof;

// Logs with other keys or shapes.
const rogue = new TestLog(otherLogKey);
rogue.append(goodBody);
const single = TestLog.withTestKey();
single.append(goodBody);
// A log of the same key where the witnessed hash is submitted with an ECDSA P-256 key.
const ecLog = TestLog.withTestKey();
ecLog.append(hashedRekordBody({ witnessedHashHex: sha256Hex('ec filler'), submitter: stranger }));
const EC_SUBMITTED = ecLog.append(hashedRekordBody({ witnessedHashHex: WITNESSED, submitter: ecSubmitter }));
const ecEntry = (): TlogEntry => ecLog.entry(EC_SUBMITTED, { integratedTime: T });
const edLogKey = generateKeyPairSync('ed25519').privateKey;
const edLog = new TestLog(edLogKey);
edLog.append(hashedRekordBody({ witnessedHashHex: sha256Hex('ed filler'), submitter: stranger }));
edLog.append(goodBody);
edLog.append(hashedRekordBody({ witnessedHashHex: sha256Hex('ed filler 2'), submitter: stranger }));
const ED_MATERIAL: TlogMaterial = {
  logKeys: loadTlogKeys([{ log_id: edLog.logId, public_key_file: 'ed.pub.pem' }], [publicPem(edLogKey)]),
  submitterKeys: SUBMITTERS,
};
const UNWINDOWED: TlogMaterial = {
  logKeys: loadTlogKeys([{ log_id: log.logId, public_key_file: 'TEST-ONLY-tlog.pub.pem' }], [testKeyPem('TEST-ONLY-tlog.pub.pem')]),
  submitterKeys: loadTlogSubmitterKeys(
    [{ ...pinnedSubmitter, valid_from: '2019-01-01T00:00:00Z' }],
    [testKeyPem('TEST-ONLY-arkforge-2026.pub.pem')],
  ),
};

/** Every check's outcome: 'pass' unless named. */
const outcomes = (o: Partial<Record<TlogCheck, TlogCheckOutcome>> = {}): Record<TlogCheck, TlogCheckOutcome> =>
  Object.fromEntries(TLOG_CHECKS.map((c) => [c, o[c] ?? 'pass'])) as Record<TlogCheck, TlogCheckOutcome>;
const ALL_SKIPPED = Object.fromEntries(TLOG_CHECKS.map((c) => [c, 'skipped'])) as Record<TlogCheck, TlogCheckOutcome>;

interface Case {
  name: string;
  entry: () => unknown;
  reason_codes: TlogCode[];
  checks: Record<TlogCheck, TlogCheckOutcome>;
  material?: TlogMaterial;
}

const cases: Case[] = [
  // --- passing ---------------------------------------------------------------------------------
  { name: 'a valid entry', entry: () => entryAt(GOOD), reason_codes: [], checks: outcomes() },
  {
    name: 'the same entry as the last leaf of an earlier head (size 4)',
    entry: () => entryAt(GOOD, { treeSize: 4 }),
    reason_codes: [],
    checks: outcomes(),
  },
  {
    name: 'the same entry in a head where its subtree is promoted (size 5)',
    entry: () => entryAt(GOOD, { treeSize: 5 }),
    reason_codes: [],
    checks: outcomes(),
  },
  { name: 'the same entry in a later head (size 13)', entry: () => entryAt(GOOD, { treeSize: 13 }), reason_codes: [], checks: outcomes() },
  { name: 'a one-leaf log (empty audit path)', entry: () => single.entry(0, { integratedTime: T }), reason_codes: [], checks: outcomes() },
  {
    name: 'a sharded log: the entry’s global logIndex differs from the proof’s',
    entry: () => entryAt(GOOD, { logIndex: 1_000_000 + GOOD }),
    reason_codes: [],
    checks: outcomes(),
  },
  {
    name: 'a checkpoint with an extra note line and a witness cosignature',
    entry: () =>
      entryAt(GOOD, {
        checkpoint: { extraLines: ['Timestamp: 1773144005000000000'], cosigners: [{ name: 'witness.prereg.invalid', key: otherLogKey }] },
      }),
    reason_codes: [],
    checks: outcomes(),
  },
  {
    name: 'an Ed25519 log key',
    entry: () => edLog.entry(1, { integratedTime: T }),
    reason_codes: [],
    checks: outcomes(),
    material: ED_MATERIAL,
  },
  {
    name: 'a parsed JsonValue (numbers as lexemes)',
    entry: () => parseJson(JSON.stringify(entryAt(GOOD), null, 2)),
    reason_codes: [],
    checks: outcomes(),
  },
  {
    name: 'a log key pinned without a window',
    entry: () => entryAt(GOOD, { integratedTime: seconds('2020-01-01T00:00:00Z') }),
    reason_codes: [],
    checks: outcomes(),
    material: UNWINDOWED,
  },
  {
    name: 'integratedTime exactly valid_from (windows are half-open)',
    entry: () => entryAt(GOOD, { integratedTime: seconds(WINDOW.valid_from) }),
    reason_codes: [],
    checks: outcomes(),
  },
  {
    name: 'an ECDSA P-256 submitter key pinned with no end (valid_until null)',
    entry: ecEntry,
    reason_codes: [],
    checks: outcomes(),
    material: BOTH_SUBMITTERS,
  },
  {
    name: 'the Ed25519 submitter next to another pinned submitter key',
    entry: () => entryAt(GOOD),
    reason_codes: [],
    checks: outcomes(),
    material: BOTH_SUBMITTERS,
  },

  // --- structure -------------------------------------------------------------------------------
  ...(
    [
      ['null', () => null],
      ['an array', () => [entryAt(GOOD)]],
      ['the API response still wrapped in its uuid', () => ({ ['24296fb24b8ad77a' + 'ab'.repeat(32)]: entryAt(GOOD) })],
      ['an entry without verification', () => mutate(entryAt(GOOD), (e) => delete (e as Partial<TlogEntry>).verification)],
      [
        'an inclusion proof without checkpoint',
        () => mutate(entryAt(GOOD), (e) => delete (proofOf(e) as Partial<ReturnType<typeof proofOf>>).checkpoint),
      ],
      [
        'a logIndex as a string',
        () => mutate(entryAt(GOOD), (e) => ((e as unknown as Record<string, unknown>).logIndex = String(e.logIndex))),
      ],
      ['an uppercase-hex audit node', () => mutate(entryAt(GOOD), (e) => (proofOf(e).hashes[0] = proofOf(e).hashes[0]!.toUpperCase()))],
      ['a body that is not base64', () => mutate(entryAt(GOOD), (e) => (e.body = `${e.body.slice(0, -4)}!!!!`))],
      ['a logIndex beyond 2^53 (plain JS)', () => mutate(entryAt(GOOD), (e) => (e.logIndex = 2 ** 60))],
      [
        'a logIndex beyond 2^53 (parsed)',
        () => parseJson(JSON.stringify(entryAt(GOOD)).replace(/"logIndex":3,"verification"/, '"logIndex":9007199254740993,"verification"')),
      ],
    ] as const
  ).map(([what, entry]): Case => ({ name: `malformed: ${what}`, entry, reason_codes: ['PROOF_TLOG_MALFORMED'], checks: ALL_SKIPPED })),

  // --- kind ------------------------------------------------------------------------------------
  {
    name: 'an entry of another kind (intoto)',
    entry: () => entryAt(OTHER_KIND),
    reason_codes: ['PROOF_TLOG_KIND'],
    checks: outcomes({ kind: 'fail', artifact: 'skipped', entry_signature: 'skipped' }),
  },
  {
    name: 'a body that is not JSON',
    entry: () => entryAt(NOT_JSON),
    reason_codes: ['PROOF_TLOG_KIND'],
    checks: outcomes({ kind: 'fail', artifact: 'skipped', entry_signature: 'skipped' }),
  },
  {
    name: 'a hashedrekord of another apiVersion',
    entry: () => entryAt(API_002),
    reason_codes: ['PROOF_TLOG_KIND'],
    checks: outcomes({ kind: 'fail', artifact: 'skipped', entry_signature: 'skipped' }),
  },

  // --- artifact --------------------------------------------------------------------------------
  {
    name: 'a log entry for another artifact',
    entry: () => entryAt(OTHER_ARTIFACT),
    reason_codes: ['PROOF_TLOG_ARTIFACT'],
    checks: outcomes({ artifact: 'fail', entry_signature: 'skipped' }),
  },
  {
    name: 'an entry logging SHA-256 of the raw 32 bytes, not of the hex string',
    entry: () => entryAt(RAW_DIGEST),
    reason_codes: ['PROOF_TLOG_ARTIFACT'],
    checks: outcomes({ artifact: 'fail', entry_signature: 'skipped' }),
  },

  // --- entry signature -------------------------------------------------------------------------
  {
    name: 'an entry signed by an unpinned submitter key',
    entry: () => entryAt(UNPINNED_SUBMITTER),
    reason_codes: ['PROOF_TLOG_SUBMITTER_UNPINNED'],
    checks: outcomes({ entry_signature: 'fail' }),
  },
  {
    name: 'an ECDSA P-256 submitter that is not pinned',
    entry: ecEntry,
    reason_codes: ['PROOF_TLOG_SUBMITTER_UNPINNED'],
    checks: outcomes({ entry_signature: 'fail' }),
  },
  {
    name: 'no submitter key pinned at all',
    entry: () => entryAt(GOOD),
    reason_codes: ['PROOF_TLOG_SUBMITTER_UNPINNED'],
    checks: outcomes({ entry_signature: 'fail' }),
    material: { logKeys: MATERIAL.logKeys, submitterKeys: [] },
  },
  {
    name: 'the submitter key pinned only from after integratedTime',
    entry: () => entryAt(GOOD),
    reason_codes: ['PROOF_TLOG_SUBMITTER_UNPINNED'],
    checks: outcomes({ entry_signature: 'fail' }),
    material: LATE_SUBMITTER,
  },
  {
    name: 'integratedTime exactly the submitter key’s valid_until (the log key pinned without a window)',
    entry: () => entryAt(GOOD, { integratedTime: seconds(WINDOW.valid_until) }),
    reason_codes: ['PROOF_TLOG_SUBMITTER_UNPINNED'],
    checks: outcomes({ entry_signature: 'fail' }),
    material: { logKeys: UNWINDOWED.logKeys, submitterKeys: SUBMITTERS },
  },
  {
    name: 'an entry whose signature is over other bytes',
    entry: () => entryAt(BAD_SIGNATURE),
    reason_codes: ['PROOF_TLOG_ENTRY_SIGNATURE'],
    checks: outcomes({ entry_signature: 'fail' }),
  },

  // --- SET -------------------------------------------------------------------------------------
  {
    name: 'a SET over a changed integrated time',
    entry: () => mutate(entryAt(GOOD), (e) => (e.integratedTime += 60)),
    reason_codes: ['PROOF_TLOG_SET'],
    checks: outcomes({ set: 'fail' }),
  },
  {
    name: 'a SET over a changed logIndex',
    entry: () => mutate(entryAt(GOOD), (e) => (e.logIndex += 1)),
    reason_codes: ['PROOF_TLOG_SET'],
    checks: outcomes({ set: 'fail' }),
  },
  {
    name: 'a SET signed by another key',
    entry: () =>
      mutate(
        entryAt(GOOD),
        (e) =>
          (e.verification.signedEntryTimestamp = rogue.signedEntryTimestamp({
            body: e.body,
            integratedTime: e.integratedTime,
            logID: e.logID,
            logIndex: e.logIndex,
          })),
      ),
    reason_codes: ['PROOF_TLOG_SET'],
    checks: outcomes({ set: 'fail' }),
  },

  // --- inclusion -------------------------------------------------------------------------------
  {
    name: 'an inclusion proof for another tree size (path of size 10, head of size 12)',
    entry: () => mutate(entryAt(GOOD), (e) => (proofOf(e).hashes = log.auditPath(GOOD, 10))),
    reason_codes: ['PROOF_TLOG_INCLUSION'],
    checks: outcomes({ inclusion: 'fail' }),
  },
  {
    name: 'a path one node short',
    entry: () => mutate(entryAt(GOOD), (e) => proofOf(e).hashes.pop()),
    reason_codes: ['PROOF_TLOG_INCLUSION'],
    checks: outcomes({ inclusion: 'fail' }),
  },
  {
    name: 'a path one node too long',
    entry: () => mutate(entryAt(GOOD), (e) => proofOf(e).hashes.push(proofOf(e).hashes[0]!)),
    reason_codes: ['PROOF_TLOG_INCLUSION'],
    checks: outcomes({ inclusion: 'fail' }),
  },
  {
    name: 'a leaf index outside the tree',
    entry: () => mutate(entryAt(GOOD), (e) => (proofOf(e).logIndex = SIZE)),
    reason_codes: ['PROOF_TLOG_INCLUSION'],
    checks: outcomes({ inclusion: 'fail' }),
  },
  {
    name: 'an inclusion proof for another leaf',
    entry: () => mutate(entryAt(GOOD), (e) => (proofOf(e).hashes = log.auditPath(OTHER_ARTIFACT, SIZE))),
    reason_codes: ['PROOF_TLOG_INCLUSION'],
    checks: outcomes({ inclusion: 'fail' }),
  },

  // --- checkpoint ------------------------------------------------------------------------------
  {
    name: 'a checkpoint signed by another key',
    entry: () => entryAt(GOOD, { checkpoint: { signer: otherLogKey } }),
    reason_codes: ['PROOF_TLOG_CHECKPOINT'],
    checks: outcomes({ checkpoint: 'fail' }),
  },
  {
    name: 'a checkpoint signed by another key under the pinned key’s hint',
    entry: () => entryAt(GOOD, { checkpoint: { signer: otherLogKey, keyHint: Buffer.from(log.logId, 'hex').subarray(0, 4) } }),
    reason_codes: ['PROOF_TLOG_CHECKPOINT'],
    checks: outcomes({ checkpoint: 'fail' }),
  },
  {
    name: 'a checkpoint whose root differs from the proof’s (same size, signed: a split view)',
    entry: () => entryAt(GOOD, { checkpoint: { root: log.rootHash(13) } }),
    reason_codes: ['PROOF_TLOG_CHECKPOINT'],
    checks: outcomes({ checkpoint: 'fail' }),
  },
  {
    name: 'a checkpoint of a later tree head',
    entry: () => mutate(entryAt(GOOD), (e) => (proofOf(e).checkpoint = log.checkpoint(13))),
    reason_codes: ['PROOF_TLOG_CHECKPOINT'],
    checks: outcomes({ checkpoint: 'fail' }),
  },
  {
    name: 'an overstated treeSize whose path length still fits (13 for 12): only the checkpoint catches it',
    entry: () => mutate(entryAt(GOOD), (e) => (proofOf(e).treeSize = 13)),
    reason_codes: ['PROOF_TLOG_CHECKPOINT'],
    checks: outcomes({ checkpoint: 'fail' }),
  },
  {
    name: 'a checkpoint that is not a signed note',
    entry: () => mutate(entryAt(GOOD), (e) => (proofOf(e).checkpoint = proofOf(e).checkpoint.replace('\n\n', '\n'))),
    reason_codes: ['PROOF_TLOG_CHECKPOINT'],
    checks: outcomes({ checkpoint: 'fail' }),
  },

  // --- log key ---------------------------------------------------------------------------------
  {
    name: 'an unpinned log key',
    entry: () => rogue.entry(0, { integratedTime: T }),
    reason_codes: ['PROOF_TLOG_KEY_UNPINNED'],
    checks: outcomes({ log_key: 'fail', set: 'skipped', checkpoint: 'skipped' }),
  },
  {
    name: 'a pinned log key outside its window (before valid_from)',
    entry: () => entryAt(GOOD, { integratedTime: seconds(WINDOW.valid_from) - 1 }),
    reason_codes: ['PROOF_TLOG_KEY_UNPINNED'],
    checks: outcomes({ log_key: 'fail' }),
    material: WIDE_SUBMITTER,
  },
  {
    name: 'integratedTime exactly valid_until',
    entry: () => entryAt(GOOD, { integratedTime: seconds(WINDOW.valid_until) }),
    reason_codes: ['PROOF_TLOG_KEY_UNPINNED'],
    checks: outcomes({ log_key: 'fail' }),
    material: WIDE_SUBMITTER,
  },
  {
    name: 'no log key pinned at all',
    entry: () => entryAt(GOOD),
    reason_codes: ['PROOF_TLOG_KEY_UNPINNED'],
    checks: outcomes({ log_key: 'fail', set: 'skipped', checkpoint: 'skipped' }),
    material: { logKeys: [], submitterKeys: SUBMITTERS },
  },

  // --- several at once -------------------------------------------------------------------------
  {
    name: 'several failures at once: another artifact, a changed time, a short path, a foreign checkpoint',
    entry: () =>
      mutate(entryAt(OTHER_ARTIFACT, { checkpoint: { signer: otherLogKey } }), (e) => {
        e.integratedTime += 60;
        proofOf(e).hashes.pop();
      }),
    reason_codes: ['PROOF_TLOG_ARTIFACT', 'PROOF_TLOG_CHECKPOINT', 'PROOF_TLOG_INCLUSION', 'PROOF_TLOG_SET'],
    checks: outcomes({ artifact: 'fail', entry_signature: 'skipped', set: 'fail', inclusion: 'fail', checkpoint: 'fail' }),
  },
  {
    name: 'an unpinned log whose entry is for another artifact by an unpinned submitter',
    entry: () => {
      const l = new TestLog(otherLogKey);
      l.append(hashedRekordBody({ witnessedHashHex: OTHER, submitter: stranger }));
      return l.entry(0, { integratedTime: T });
    },
    reason_codes: ['PROOF_TLOG_ARTIFACT', 'PROOF_TLOG_KEY_UNPINNED'],
    checks: outcomes({ artifact: 'fail', entry_signature: 'skipped', set: 'skipped', checkpoint: 'skipped', log_key: 'fail' }),
  },
];

describe('verifyTlogEntry (SPEC §6.1, transparency log, offline)', () => {
  it.each(cases)('$name', (c) => {
    const r = verifyTlogEntry(c.entry(), WITNESSED, c.material ?? MATERIAL);
    expect({ reason_codes: r.reason_codes, checks: r.checks }).toEqual({ reason_codes: c.reason_codes, checks: c.checks });
    expect(r.ok).toBe(c.reason_codes.length === 0);
    // Every failure says what was wrong; a passing entry has nothing to say.
    if (c.reason_codes.length === 0) expect(r.problems).toEqual([]);
    else expect(r.problems.length).toBeGreaterThanOrEqual(c.reason_codes.length);
  });

  it('reports the log index, id and integrated time the entry states', () => {
    const r = verifyTlogEntry(entryAt(GOOD), WITNESSED, MATERIAL);
    expect(r).toMatchObject({ ok: true, log_id: log.logId, log_index: GOOD, integrated_time: '2026-03-10T12:00:05Z' });
    const changed = verifyTlogEntry(
      mutate(entryAt(GOOD), (e) => (e.integratedTime += 60)),
      WITNESSED,
      MATERIAL,
    );
    expect(changed).toMatchObject({ ok: false, integrated_time: '2026-03-10T12:01:05Z' });
    expect(verifyTlogEntry(null, WITNESSED, MATERIAL)).toMatchObject({ log_id: null, log_index: null, integrated_time: null });
  });

  it('says where a failure is', () => {
    const short = verifyTlogEntry(
      mutate(entryAt(GOOD), (e) => proofOf(e).hashes.pop()),
      WITNESSED,
      MATERIAL,
    );
    expect(short.problems).toEqual([
      `inclusion proof: the audit path has 3 nodes, RFC 6962 fixes 4 for leaf ${GOOD} of a tree of size ${SIZE}`,
    ]);
    const artifact = verifyTlogEntry(entryAt(OTHER_ARTIFACT), WITNESSED, MATERIAL);
    expect(artifact.problems[0]).toContain(`the entry logs sha256:${sha256Hex(OTHER)}`);
    const malformed = verifyTlogEntry(
      mutate(entryAt(GOOD), (e) => delete (e as Partial<TlogEntry>).verification),
      WITNESSED,
      MATERIAL,
    );
    expect(malformed.problems).toEqual(["transparency-log entry / must have required property 'verification'"]);
  });

  it('the entry witnesses one hash: the same entry checked for another hash is for another artifact', () => {
    expect(verifyTlogEntry(entryAt(OTHER_ARTIFACT), OTHER, MATERIAL).ok).toBe(true);
    expect(verifyTlogEntry(entryAt(GOOD), OTHER, MATERIAL).reason_codes).toEqual(['PROOF_TLOG_ARTIFACT']);
  });

  it('throws only for a caller bug: a witnessed hash that is not 64 lowercase hex', () => {
    for (const bad of [`sha256:${WITNESSED}`, WITNESSED.toUpperCase(), WITNESSED.slice(1)]) {
      expect(() => verifyTlogEntry(entryAt(GOOD), bad, MATERIAL)).toThrow(TypeError);
    }
    for (const junk of [undefined, 42, 'entry', { body: 1 }, { verification: null }]) {
      expect(verifyTlogEntry(junk, WITNESSED, MATERIAL).reason_codes).toEqual(['PROOF_TLOG_MALFORMED']);
    }
  });

  it('every PROOF_TLOG_* code is in the reason catalogue and means UNTRUSTED', () => {
    for (const [code, { status }] of Object.entries(TLOG_CODES)) {
      const entry = (REASONS as Record<string, { meaning: string; next: string } | undefined>)[code];
      expect(entry?.meaning, code).toBeTruthy();
      expect(entry?.next, code).toBeTruthy();
      expect(status).toBe('UNTRUSTED');
    }
    // ... and every code is exercised by a rejecting case above.
    expect(new Set(cases.flatMap((c) => c.reason_codes))).toEqual(new Set(Object.keys(TLOG_CODES)));
  });
});

describe('loadTlogKeys (pinned log keys, decoded once)', () => {
  const pubPath = fileURLToPath(new URL('../../fixtures/keys/TEST-ONLY-tlog.pub.pem', import.meta.url));

  it('log_id is hex SHA-256 of the key’s DER SPKI, as OpenSSL computes it', () => {
    const der = execFileSync('openssl', ['pkey', '-pubin', '-in', pubPath, '-outform', 'DER']);
    expect(log.logId).toBe(sha256Hex(der));
    const [k] = MATERIAL.logKeys;
    expect(k).toMatchObject({ log_id: log.logId, from_ms: Date.parse(WINDOW.valid_from), until_ms: Date.parse(WINDOW.valid_until) });
    expect(k!.key.asymmetricKeyType).toBe('ec');
    expect(logIdOf(k!.key)).toBe(log.logId);
    expect(UNWINDOWED.logKeys[0]).not.toHaveProperty('from_ms');
  });

  const p256 = testKeyPem('TEST-ONLY-tlog.pub.pem');
  const pemOf = (key: KeyObject): string => publicPem(key);
  const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey;
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
  const refusals: Array<[string, TlogKeyPolicy[], string[]]> = [
    ['a log_id that is not the key’s', [{ ...pinnedLog, log_id: logIdOf(createPublicKey(otherLogKey)) }], [p256]],
    ['a private key', [pinnedLog], [testKeyPem('TEST-ONLY-tlog.key.pem')]],
    ['a certificate-less garbage file', [pinnedLog], ['not a key']],
    ['an ECDSA P-384 key', [{ ...pinnedLog, log_id: logIdOf(p384) }], [pemOf(p384)]],
    ['an RSA key', [{ ...pinnedLog, log_id: logIdOf(rsa) }], [pemOf(rsa)]],
    ['a log_id pinned twice', [pinnedLog, pinnedLog], [p256, p256]],
    ['a window that is not UTC', [{ ...pinnedLog, valid_from: '2026-01-01' }], [p256]],
    ['an empty window', [{ ...pinnedLog, valid_from: WINDOW.valid_until, valid_until: WINDOW.valid_from }], [p256]],
  ];
  it.each(refusals)('refuses %s (TRUST_POLICY_INVALID)', (_what, entries, pems) => {
    let error: unknown;
    try {
      loadTlogKeys(entries, pems);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PreregError);
    expect((error as PreregError).code).toBe('TRUST_POLICY_INVALID');
  });

  it('no tlog_keys in the policy: no pinned log key', () => {
    expect(loadTlogKeys(undefined, [])).toEqual([]);
  });

  it('valid_until null is no end, as an absent one', () => {
    const [k] = loadTlogKeys([{ ...pinnedLog, valid_until: null }], [p256]);
    expect(k).toMatchObject({ from_ms: Date.parse(WINDOW.valid_from) });
    expect(k).not.toHaveProperty('until_ms');
  });
});

describe('loadTlogSubmitterKeys (the issuer’s pinned log-signing keys)', () => {
  const ed = testKeyPem('TEST-ONLY-arkforge-2026.pub.pem');
  const p256 = publicPem(ecSubmitter);
  const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey;
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;

  it('decodes Ed25519 and ECDSA P-256 keys with their windows; null is no end', () => {
    const keys = loadTlogSubmitterKeys(
      [pinnedSubmitter, { key_id: 'ec', public_key_file: 'ec.pem', valid_from: WINDOW.valid_from, valid_until: null }],
      [ed, p256],
    );
    expect(keys.map((k) => [k.key_id, k.key.asymmetricKeyType, k.from_ms, k.until_ms])).toEqual([
      ['arkforge-2026', 'ed25519', Date.parse(WINDOW.valid_from), Date.parse(WINDOW.valid_until)],
      ['ec', 'ec', Date.parse(WINDOW.valid_from), undefined],
    ]);
    expect(keys[0]!.key.equals(issuerPublic)).toBe(true);
    expect(loadTlogSubmitterKeys(undefined, [])).toEqual([]);
  });

  const refusals: Array<[string, TlogSubmitterKeyPolicy[], string[]]> = [
    ['a private key', [pinnedSubmitter], [testKeyPem('TEST-ONLY-arkforge-2026.key.pem')]],
    ['a file that is no key', [pinnedSubmitter], ['not a key']],
    ['an ECDSA P-384 key', [pinnedSubmitter], [publicPem(p384)]],
    ['an RSA key', [pinnedSubmitter], [publicPem(rsa)]],
    ['a key_id pinned twice', [pinnedSubmitter, { ...pinnedSubmitter, public_key_file: 'ec.pem' }], [ed, p256]],
    ['a valid_from that is not UTC', [{ ...pinnedSubmitter, valid_from: '2026-01-01' }], [ed]],
    ['a valid_until that is not UTC', [{ ...pinnedSubmitter, valid_until: '2027-01-01T00:00:00+01:00' }], [ed]],
    ['an empty window', [{ ...pinnedSubmitter, valid_from: WINDOW.valid_until, valid_until: WINDOW.valid_from }], [ed]],
  ];
  it.each(refusals)('refuses %s (TRUST_POLICY_INVALID)', (_what, entries, pems) => {
    let error: unknown;
    try {
      loadTlogSubmitterKeys(entries, pems);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PreregError);
    expect((error as PreregError).code).toBe('TRUST_POLICY_INVALID');
  });
});

describe('interoperability with the public Rekor log (rekor.sigstore.dev)', () => {
  // The production log's public key: its log id c0d23d6a… is SHA-256 of this key's DER SPKI.
  const REKOR_PUB = [
    '-----BEGIN PUBLIC KEY-----',
    'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE2G2Y+2tabdTV5BcGiBIx0a9fAFwr',
    'kBbmLSGtks4L3qX6yYY0zufBnhC8Ur/iy55GhWP/9A/bY2LhC30M9+RYtw==',
    '-----END PUBLIC KEY-----',
    '',
  ].join('\n');
  const REKOR_LOG_ID = 'c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d';
  // A hashedrekord entry of the public log (logIndex 67934953) as its API serves it, with its
  // SET and checkpoint; the copy at hand lacks the audit path, and the artifact is unknown here.
  const ENTRY = {
    body: 'eyJhcGlWZXJzaW9uIjoiMC4wLjEiLCJraW5kIjoiaGFzaGVkcmVrb3JkIiwic3BlYyI6eyJkYXRhIjp7Imhhc2giOnsiYWxnb3JpdGhtIjoic2hhMjU2IiwidmFsdWUiOiI3YTIxODlmNzNlYTVkYmVlMmQ1NjgxMGU4NjBjZDgxNjdlYTFiMGYzMTdkZGRjMmU0YzE2NmU3ZDY4NzUzOGYwIn19LCJzaWduYXR1cmUiOnsiY29udGVudCI6Ik1FUUNJQlZtMVc1YlNSOXBTYVFyRWRVL2dOeEZuaVQzMCs4RGp5SG9naERwWHM3b0FpQXMyby82c3l2bzRaTDd3YVUrMXBNeVIvR1dNWlZTaUdzRm5hSm04ZDZZZ0E9PSIsInB1YmxpY0tleSI6eyJjb250ZW50IjoiTFMwdExTMUNSVWRKVGlCUVZVSk1TVU1nUzBWWkxTMHRMUzBLVFVacmQwVjNXVWhMYjFwSmVtb3dRMEZSV1VsTGIxcEplbW93UkVGUlkwUlJaMEZGUldGSWNHUmhZVE13ZEVOaVMxbG5lalpyUlhsQmNqTXJORmh5TWdwb1pWUjNaM2hQVVVrM2QwcDRiVWhIWW5OU1dYcEJWbFJyUVN0RGIzVjZUblZrTUc5eGRuUTRXVXB0Tm5CQlFUZG5SbUZFUkZGU05EUlJQVDBLTFMwdExTMUZUa1FnVUZWQ1RFbERJRXRGV1MwdExTMHRDZz09In19fX0=',
    integratedTime: 1706680021,
    logID: REKOR_LOG_ID,
    logIndex: 67934953,
    verification: {
      signedEntryTimestamp: 'MEUCIQCLiNiSLxFk8vgkCopYcuFQXGEcvr6YM0TXgFUe5HcAHAIgSJuWj3uH8QrQeaEfc5ddMpIwU4JdXmQD3bgfkntEVTk=',
      inclusionProof: {
        logIndex: 63771522,
        rootHash: '5bbff4e9f8034a33b102996271c0e01b87caa83c44c46e893b47b81467fd808c',
        treeSize: 64319120,
        hashes: [],
        checkpoint:
          'rekor.sigstore.dev - 2605736670972794746\n64319120\nW7/06fgDSjOxApliccDgG4fKqDxExG6JO0e4FGf9gIw=\nTimestamp: 1706845443714164712\n\n\u2014 rekor.sigstore.dev wNI9ajBFAiEAnduIhP1Jjz8E0ZAP8e1x0aKqzJCtmWZyV1mRJB/PlOoCIBoeHdjeONYmxlD2Za7sU0NeK/60skNnwoelsa3m2M8z\n',
      },
    },
  };

  it('its SET and checkpoint verify with the production key: same payload, key hint and note as the in-test log', () => {
    const material: TlogMaterial = {
      logKeys: loadTlogKeys([{ log_id: REKOR_LOG_ID, public_key_file: 'rekor.pub' }], [REKOR_PUB]),
      submitterKeys: SUBMITTERS,
    };
    const r = verifyTlogEntry(ENTRY, WITNESSED, material);
    expect(r.checks).toEqual(outcomes({ artifact: 'fail', entry_signature: 'skipped', inclusion: 'fail' }));
    expect(r.reason_codes).toEqual(['PROOF_TLOG_ARTIFACT', 'PROOF_TLOG_INCLUSION']);
    // The SET covers integratedTime: one second later, it no longer verifies.
    const later = verifyTlogEntry({ ...ENTRY, integratedTime: ENTRY.integratedTime + 1 }, WITNESSED, material);
    expect(later.checks.set).toBe('fail');
  });
});
